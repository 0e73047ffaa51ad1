/**
 * The one way the facade writes a file: an in-place write through a handle the user opens on the target, as an SMB
 * client that saves a file does. The file server decides with its own access check (FILE_WRITE_DATA on an
 * existing file, FILE_ADD_FILE on the folder for a new one) and the write changes nothing but the content: owner,
 * DACL, file id, creation time and alternate data streams stay.
 *
 * The new bytes reach the target in the commit (see `commit`): CREATE as the user, SET_INFO end of file and the
 * content in one round trip, which the server carries out whole once it is sent, even if this process dies then.
 * The content is
 * - a body of one block (a wiki page): one WRITE, followed in the same round trip by the file id and the CLOSE;
 *   nothing of it is stored on the server before the commit. A block is BLOCK_SIZE, or less where the server takes
 *   less in one WRITE (its negotiated MaxWriteSize);
 * - a larger body: a server-side copy (FSCTL_SRV_COPYCHUNK_WRITE) from a staging file that held the body while it
 *   arrived, 16 MiB per round trip. The staging file is private to this upload: created with an empty protected
 *   DACL (only its owner's implicit rights, which do not include reading), no share access for other opens, and
 *   delete-on-close, so the server removes it when the handle closes, also when this process or its connection dies.
 * A caller's `decide` (preconditions, locks) runs after the body has arrived and right before the commit.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertStatus, type SmbResponse } from './connection.js';
import { NtStatus, SmbError } from './errors.js';
import { Command } from './header.js';
import { FileInfoClass, endOfFileInfo } from './fscc.js';
import { Access, type CloseAttributes, closeRequest, CreateOptions, createRequest, type CreateResponse, Disposition, FileAttributes, parseCloseResponse, parseCreateResponse, READ_ATTRS, RELATED_FILE_ID, ShareAccess } from './messages/create.js';
import { type LockElement, LockFlags, lockRequest } from './messages/lock.js';
import { type CopyChunk, copyChunkWriteRequest, parseCopyChunkResponse, parseResumeKeyResponse, resumeKeyRequest } from './messages/ioctl.js';
import { InfoType, setInfoRequest } from './messages/query.js';
import { parseWriteResponse, writeRequest } from './messages/read-write.js';
import type { SmbRequest } from './messages/request.js';
import { FileHandle, internalIdRequest, parseInternalIdResponse } from './open.js';
import { joinPath, splitPath, toSmbPath } from './paths.js';
import { encodeSecurityDescriptor } from './security-descriptor.js';
import { SdControl } from '../windows-security/access-control.js';
import type { Tree } from './tree.js';

/** Upload data is written in blocks of this size (and streamed reads read in blocks of it). */
export const BLOCK_SIZE = 1024 * 1024;

/** Staging files of uploads in progress, for listings to hide. */
export const TEMP_NAME = /^\..+\.~[0-9a-f]{12}\.tmp$/;

/**
 * How an upload may meet its target, decided after the data has arrived: `replace` only an existing file,
 * `create` only a new one, `create-or-replace` either.
 */
export type CommitMode = 'replace' | 'create' | 'create-or-replace';

interface Uploaded {
  /** The new version's attributes, from the CLOSE (times can still change at CLOSE: pending write time). */
  attributes: CloseAttributes;
  fileId: string;
  /** The target did not exist before. */
  created: boolean;
}

const DISPOSITION: Record<CommitMode, number> = {
  replace: Disposition.OPEN,
  create: Disposition.CREATE,
  'create-or-replace': Disposition.OPEN_IF,
};

/** CreateAction of a CREATE that made a new file (MS-SMB2 2.2.14). */
const FILE_CREATED = 2;

/**
 * Server-side copy limits every server accepts (MS-SMB2 3.3.3: Windows' defaults, Samba's too): chunks per
 * request, bytes per chunk and per request.
 */
const COPY_CHUNK_SIZE = 1024 * 1024;
const COPY_CHUNKS_PER_REQUEST = 16;

/**
 * Another client has the target open in a way that excludes writing (Windows semantics), or holds a byte-range lock
 * on it. Readers hold files briefly, so the reservation is tried again for about 2.5 s before the error is returned.
 */
const IN_USE_RETRY_MS = [10, 20, 40, 80, 160, 250, 250, 250, 500, 500, 500];

/**
 * How long the reservation waits while the file server breaks another client's oplock or lease (its CREATE is
 * pending until that client acknowledges). SMB clients acknowledge within milliseconds (2 ms on the testbed's Samba);
 * one that has not after 15 s is not going to, and Samba itself would wait 35 s, past the 30 s after which the HTTP
 * client's idle connection is cut (http.body_timeout). So the open is cancelled and the save refused (in use) with
 * nothing changed, rather than left to finish after its client is gone.
 */
const BREAK_WAIT_MS = 15_000;

/**
 * The byte range the reservation locks: all of the file, whatever its old and new length (2^63, the largest range
 * every server takes). A write must not meet a range another client locked (Office locks what it reads), and the
 * end of file must not cut one.
 */
const WHOLE_FILE: LockElement = { offset: 0n, length: 1n << 63n, flags: LockFlags.EXCLUSIVE | LockFlags.FAIL_IMMEDIATELY };

/**
 * Writes `chunks` into the file at `path` in place, once `decide` (which may check preconditions and locks, or
 * throw to abandon the upload) has said how the target may be met; a body larger than one block waits in a private
 * staging file until then.
 */
export async function upload(tree: Tree, path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<Uploaded> {
  const target = toSmbPath(path);
  const blocks = inBlocks(chunks, Math.min(BLOCK_SIZE, tree.session.connection.maxWriteSize));
  const first = await blocks.next();
  const second = first.done ? first : await blocks.next();
  if (second.done) {
    const body = first.done ? Buffer.alloc(0) : first.value;
    const mode = await decide();
    const steps: Step[] = body.length > 0 ? [{ request: (fileId) => writeRequest(fileId, 0, body), bytes: body.length }] : [];
    return commit(tree, target, mode, body.length, { steps, waits: false });
  }
  const staging = await Staging.create(tree, toSmbPath(tempNameBeside(path)), first.value);
  try {
    let size = first.value.length;
    for (let next: IteratorResult<Buffer> = second; !next.done; next = await blocks.next()) {
      await staging.handle.write(size, next.value);
      size += next.value.length;
    }
    const mode = await decide();
    return await commit(tree, target, mode, size, copyContent(staging.resumeKey, size));
  } finally {
    await staging.handle.close().catch(() => undefined); // delete-on-close removes it
  }
}

/** One request that puts content into the target (open as `fileId`), and the bytes it must report written. */
interface Step {
  request: (fileId: Buffer) => SmbRequest;
  bytes: number;
}

interface Content {
  steps: Step[];
  /**
   * The steps are server-side copies, which the server may finish later (asynchronously); Samba allows that only to
   * the last request of a compound (MS-SMB2 3.3.5.2.7, its note on async operations), so each goes last in its round trip.
   */
  waits: boolean;
}

/**
 * The commit, in two round trips. The first reserves the target (`reserve`): the user's CREATE and an exclusive lock
 * over the whole file. Only once the file server has granted both does the second change anything: the new size,
 * the content (all of a WRITE, or the first 16 MiB of a copy), and for a WRITE the file id and the CLOSE (with the
 * new times), which also releases the lock; a copy continues with further copies of 16 MiB, each a round trip, then
 * those. The second round trip is carried out whole once it is sent, even if this process dies then.
 *
 * Why not one round trip: Samba carries on with the later requests of a compound after a failed one (it stops only
 * after a failed CREATE), so a WRITE refused for another client's byte-range lock still let the end of file that
 * came with it cut the page to the new length. Nothing that changes the file may share a round trip with a step the
 * file server can refuse for another client's sake.
 */
async function commit(tree: Tree, target: string, mode: CommitMode, size: number, content: Content): Promise<Uploaded> {
  const what = operationOn(tree, target);
  const [firstStep, ...laterSteps] = content.steps;
  const opened = await reserve(tree, target, mode);
  const finish = [internalIdRequest(opened.fileId), closeRequest(opened.fileId, true)];
  let closed = false;
  try {
    const responses = await tree.compound([
      setInfoRequest(opened.fileId, InfoType.FILE, FileInfoClass.FileEndOfFileInformation, endOfFileInfo(size)),
      ...(firstStep ? [firstStep.request(opened.fileId)] : []),
      ...(content.waits ? [] : finish),
    ]);
    assertStatus(responses[0]!, what('SET_INFO end of file'));
    if (firstStep) checkWritten(responses[1]!, firstStep.bytes, what);
    for (const step of laterSteps) checkWritten((await tree.compound([step.request(opened.fileId)]))[0]!, step.bytes, what);
    const finished = content.waits ? await tree.compound(finish) : responses.slice(-2);
    closed = finished[1]!.header.status === NtStatus.SUCCESS;
    assertStatus(finished[0]!, what('QUERY_INFO'));
    assertStatus(finished[1]!, what('CLOSE'));
    return { attributes: parseCloseResponse(finished[1]!.reader), fileId: parseInternalIdResponse(finished[0]!), created: opened.createAction === FILE_CREATED };
  } finally {
    if (!closed) await new FileHandle(tree, target, opened.fileId, opened).close().catch(() => undefined);
  }
}

/**
 * Opens the target as the user and locks all of it, in one round trip; nothing of the file changes. Refused while
 * another client's open excludes writers (SHARING_VIOLATION) or another client holds a byte-range lock on it
 * (LOCK_CONFLICT), after the retries; refused at once when the user may not write it (ACCESS_DENIED).
 */
async function reserve(tree: Tree, target: string, mode: CommitMode): Promise<CreateResponse> {
  const what = operationOn(tree, target);
  const request = [
    createRequest({
      name: target,
      // FILE_WRITE_DATA alone: what an in-place write needs, and all that is asked of the file server (a deny of
      // reading, which covers SYNCHRONIZE and the attributes, does not stop a writer over SMB either).
      desiredAccess: Access.FILE_WRITE_DATA,
      disposition: DISPOSITION[mode],
      createOptions: CreateOptions.NON_DIRECTORY_FILE,
      fileAttributes: FileAttributes.ARCHIVE,
      // Readers may go on reading; other writers wait until this one is done.
      shareAccess: ShareAccess.READ | ShareAccess.DELETE,
    }),
    lockRequest(RELATED_FILE_ID, [WHOLE_FILE]),
  ];
  for (let attempt = 0; ; attempt++) {
    const [created, locked] = await tree.heldCompound(request, { signal: AbortSignal.timeout(BREAK_WAIT_MS) });
    if (created!.header.status === NtStatus.CANCELLED) {
      throw new SmbError('SHARING_VIOLATION', `${what('CREATE')}: another program did not give up its oplock or lease within ${BREAK_WAIT_MS / 1000} s`);
    }
    const retry = attempt < IN_USE_RETRY_MS.length;
    if (created!.header.status === NtStatus.SHARING_VIOLATION && retry) {
      await sleep(IN_USE_RETRY_MS[attempt]!);
      continue;
    }
    assertStatus(created!, what('CREATE'));
    const opened = parseCreateResponse(created!.reader);
    if (locked!.header.status === NtStatus.SUCCESS) return opened;
    await new FileHandle(tree, target, opened.fileId, opened).close().catch(() => undefined);
    if (locked!.header.status === NtStatus.LOCK_NOT_GRANTED && retry) {
      await sleep(IN_USE_RETRY_MS[attempt]!);
      continue;
    }
    assertStatus(locked!, what('LOCK'));
  }
}

/** Names an operation on the target for an error message: `CREATE share\\path`. */
function operationOn(tree: Tree, target: string): (op: string) => string {
  return (op) => `${op} ${tree.shareName}\\${target}`;
}

/** A WRITE or a server-side copy that the server carried out only in part failed (a full disk, a quota). */
function checkWritten(response: SmbResponse, bytes: number, what: (op: string) => string): void {
  const op = response.header.command === Command.WRITE ? 'WRITE' : 'SRV_COPYCHUNK_WRITE';
  assertStatus(response, what(op));
  const written = response.header.command === Command.WRITE ? parseWriteResponse(response.reader) : parseCopyChunkResponse(response.reader);
  if (written !== bytes) throw new SmbError('DISK_FULL', `${what(op)}: the server wrote ${written} of ${bytes} bytes`);
}

/** Server-side copies of [0, size) of the staging file into the target, 16 MiB a request. */
function copyContent(resumeKey: Buffer, size: number): Content {
  const steps: Step[] = [];
  const perRequest = COPY_CHUNK_SIZE * COPY_CHUNKS_PER_REQUEST;
  for (let start = 0; start < size; start += perRequest) {
    const end = Math.min(size, start + perRequest);
    const chunks: CopyChunk[] = [];
    for (let offset = start; offset < end; offset += COPY_CHUNK_SIZE) {
      chunks.push({ sourceOffset: offset, targetOffset: offset, length: Math.min(COPY_CHUNK_SIZE, end - offset) });
    }
    steps.push({ request: (fileId) => copyChunkWriteRequest(fileId, resumeKey, chunks), bytes: end - start });
  }
  return { steps, waits: true };
}

/**
 * A hidden name next to `path` (share path, forward slashes) that listings leave out (TEMP_NAME): where a large body
 * waits for its commit, and where a WebDAV COPY or MOVE puts what it replaces. Shortened so that the name of a
 * 255-character file is still valid.
 */
export function tempNameBeside(path: string): string {
  const { dir, base } = splitPath(path);
  return joinPath(dir, `.${base.slice(0, 200)}.~${randomBytes(6).toString('hex')}.tmp`);
}

/** An empty protected DACL: nobody may open the file for its content; its owner may still change the DACL. */
const PRIVATE_SD = encodeSecurityDescriptor({
  revision: 1,
  control: SdControl.DACL_PROTECTED,
  owner: null,
  group: null,
  sacl: null,
  dacl: { revision: 2, aces: [] },
});

/** The private file a large body waits in until its commit; the source of the server-side copy. */
class Staging {
  private constructor(
    readonly handle: FileHandle,
    /** The server's name for this open file as a copy's source. */
    readonly resumeKey: Buffer,
  ) {}

  /** Creates the staging file with the first block and asks for its resume key, in one round trip. */
  static async create(tree: Tree, name: string, firstBlock: Buffer): Promise<Staging> {
    const responses = await tree.compound([
      createRequest({
        name,
        // The server grants a new file's creator the access asked for, whatever DACL the file is given.
        desiredAccess: Access.FILE_READ_DATA | Access.FILE_WRITE_DATA | Access.DELETE | READ_ATTRS,
        disposition: Disposition.CREATE,
        createOptions: CreateOptions.NON_DIRECTORY_FILE | CreateOptions.DELETE_ON_CLOSE,
        fileAttributes: FileAttributes.HIDDEN | FileAttributes.ARCHIVE,
        shareAccess: 0,
        securityDescriptor: PRIVATE_SD,
      }),
      writeRequest(RELATED_FILE_ID, 0, firstBlock),
      resumeKeyRequest(RELATED_FILE_ID),
    ]);
    if (responses[0]!.header.status === NtStatus.ACCESS_DENIED) {
      // Not the target's verdict: the user may not add files to its folder, which a large body's staging needs.
      throw new SmbError('STAGING_DENIED', `cannot create the staging file ${tree.shareName}\\${name} for a body over ${firstBlock.length} bytes`);
    }
    assertStatus(responses[0]!, `CREATE ${tree.shareName}\\${name}`);
    const created = parseCreateResponse(responses[0]!.reader);
    const handle = new FileHandle(tree, name, created.fileId, created);
    try {
      assertStatus(responses[1]!, `WRITE ${tree.shareName}\\${name}`);
      assertStatus(responses[2]!, `SRV_REQUEST_RESUME_KEY ${tree.shareName}\\${name}`);
      return new Staging(handle, parseResumeKeyResponse(responses[2]!.reader));
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }
}

/** Regroups a stream of chunks into blocks of `blockSize` bytes (the last may be shorter). */
async function* inBlocks(chunks: AsyncIterable<Buffer>, blockSize: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
    while (size >= blockSize) {
      const all = Buffer.concat(parts, size);
      yield all.subarray(0, blockSize);
      parts = [all.subarray(blockSize)];
      size -= blockSize;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}
