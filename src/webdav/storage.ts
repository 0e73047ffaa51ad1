// The SMB side of WebDAV: one share, opened with the requesting user's
// credentials. Most operations are the SMB facade's; reads and uploads are
// built here from its protocol layer, because WebDAV needs the file version
// (for the ETag) in the same round trip as the data, uploads of any size
// streamed to a temporary file, and a check between writing and renaming
// (If-Match, locks).
import { randomBytes } from 'node:crypto';
import { assertStatus } from '../smb/connection.js';
import { NtStatus, SmbError } from '../smb/errors.js';
import { FileInfoClass, dispositionInfo, renameInfo } from '../smb/fscc.js';
import type { SmbShare, SmbStat } from '../smb/index.js';
import {
  Access, CreateOptions, Disposition, FileAttributes, InfoType, RELATED_FILE_ID, closeRequest, createRequest,
  parseCloseResponse, parseCreateResponse, parseReadResponse, readRequest, setInfoRequest, writeRequest, type CreateParams,
} from '../smb/messages.js';
import { FileHandle, internalIdRequest, openDoClose, parseInternalIdResponse, setInfoByPath } from '../smb/open.js';
import { toSmbPath } from '../smb/paths.js';
import { carryCurrentDacl, carryDacl, replacedDacl } from '../smb/replace.js';
import type { SecurityDescriptor } from '../smb/security-descriptor.js';
import type { Tree } from '../smb/tree.js';
import { baseName, joinPath, parentPath } from './dav-path.js';
import type { DavEntry } from './properties.js';

/** Bytes read together with the open; most wiki pages fit. */
const HEAD_BYTES = 64 * 1024;
/** Upload data is written in blocks of this size. */
const WRITE_BLOCK = 1024 * 1024;
const READ_ATTRS = Access.FILE_READ_ATTRIBUTES | Access.SYNCHRONIZE;

/** Temporary files of uploads in progress: hidden from listings. */
const TEMP_NAME = /^\..+\.~[0-9a-f]{12}\.tmp$/;

/** How an upload replaces its target, decided after the data is written and right before the rename. */
export type CommitMode = 'replace' | 'create' | 'create-or-replace';

export interface UploadResult {
  entry: DavEntry;
  /** The target did not exist before. */
  created: boolean;
}

export class DavStorage {
  constructor(private readonly smb: SmbShare, readonly share: string) {}

  entryOf(s: SmbStat, path = s.path): DavEntry {
    return {
      share: this.share, path, name: s.name, isCollection: s.isDirectory, size: s.size, fileId: s.fileId,
      mtimeMs: s.mtimeMs, birthtimeMs: s.birthtime.getTime(),
    };
  }

  /** The entry, or null when nothing exists at `path`. */
  async stat(path: string): Promise<DavEntry | null> {
    try {
      return this.entryOf(await this.smb.stat(path), path);
    } catch (err) {
      if (err instanceof SmbError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  /**
   * Whether the file server grants this user `access` on `path`: a CREATE that only opens, with that desired
   * access, and its CLOSE in one round trip. ACCESS_DENIED is the server's refusal. A SHARING_VIOLATION counts as
   * granted: the server checks the access before the share modes of other opens (Windows and Samba alike), so
   * only another program holding the file stood in the way. Asked anew each time: nothing outlives an ACL change.
   */
  async checkAccess(path: string, access: number): Promise<void> {
    try {
      await onceMore(() => this.smb.withTree((tree) => openDoClose(tree, { name: toSmbPath(path), desiredAccess: access | READ_ATTRS, disposition: Disposition.OPEN }, [])));
    } catch (err) {
      if (!(err instanceof SmbError && err.code === 'SHARING_VIOLATION')) throw err;
    }
  }

  /** The members of a folder, without temporary upload files. */
  async list(path: string): Promise<DavEntry[]> {
    return (await this.smb.readdir(path)).filter((s) => !TEMP_NAME.test(s.name)).map((s) => this.entryOf(s));
  }

  /**
   * Opens a file and reads its first bytes in one round trip: CREATE, file id, READ, CLOSE. The entry and the
   * bytes are of the same version. A folder fails with IS_A_DIRECTORY.
   */
  async openRead(path: string): Promise<{ entry: DavEntry; head: Buffer }> {
    return onceMore(() => this.smb.withTree(async (tree) => {
      const { create, responses } = await openDoClose(tree, readParams(path), [
        internalIdRequest(),
        readRequest(RELATED_FILE_ID, 0, HEAD_BYTES),
      ], [[], [NtStatus.END_OF_FILE]]);
      const id = responses[0]!;
      const read = responses[1]!;
      const head = read.header.status === NtStatus.END_OF_FILE ? Buffer.alloc(0) : Buffer.from(parseReadResponse(read.reader));
      const entry: DavEntry = {
        share: this.share, path, name: baseName(path), isCollection: false, size: create.endOfFile,
        fileId: parseInternalIdResponse(id), mtimeMs: create.lastWriteTime, birthtimeMs: create.creationTime,
      };
      return { entry, head };
    }));
  }

  /**
   * Bytes [start, end] of the file version `fileId`, in blocks as the consumer takes them. Fails with
   * NOT_FOUND if the file was replaced since that version was seen.
   */
  async *readBlocks(path: string, fileId: string, start: number, end: number): AsyncGenerator<Buffer> {
    const handle = await onceMore(() => this.smb.withTree((tree) => FileHandle.open(tree, readParams(path))));
    try {
      if ((await handle.internalId()) !== fileId) throw new SmbError('NOT_FOUND', `${path} was replaced while it was being read`);
      for (let offset = start; offset <= end; offset += WRITE_BLOCK) {
        yield await handle.read(offset, Math.min(WRITE_BLOCK, end + 1 - offset));
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Every entry below a folder (not the folder itself), without temporary upload files. */
  async *walk(path: string): AsyncGenerator<DavEntry> {
    for await (const s of this.smb.walk(path)) if (!TEMP_NAME.test(s.name)) yield this.entryOf(s);
  }

  /**
   * Writes `chunks` to a temporary file next to `path`, calls `decide` (which may check preconditions and
   * locks, or throw to abandon the upload) and renames the temporary file over the target as decided. For a
   * body of more than one block `decide` runs after all data is written; for one block, during its write.
   * Readers see the old or the new version, never a part. A replaced file's DACL is read while `decide` runs
   * and carried over to the new content before the rename (src/smb/replace.ts); if that fails, the upload
   * fails with SECURITY_NOT_CARRIED and the old content stays.
   */
  async upload(path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<UploadResult> {
    // Shortened so that the temporary name of a 255-character name is still a valid name.
    const temp = joinPath(parentPath(path), `.${baseName(path).slice(0, 200)}.~${randomBytes(6).toString('hex')}.tmp`);
    return this.smb.withTree(async (tree) => {
      const decideAndRead = async (): Promise<{ mode: CommitMode; replaced: SecurityDescriptor | null }> => {
        const replaced = replacedDacl(tree, toSmbPath(path));
        replaced.catch(() => undefined);
        const mode = await decide();
        return { mode, replaced: mode === 'create' ? null : await replaced };
      };
      const blocks = inBlocks(chunks);
      const first = await blocks.next();
      const firstBlock = first.done ? Buffer.alloc(0) : first.value;
      const second = first.done ? first : await blocks.next();
      // A body of one block (a wiki page): decide while the temporary file is written, saving a round trip.
      const early = second.done ? decideAndRead() : undefined;
      early?.catch(() => undefined);
      const opened = await tree.compound([
        createRequest({
          name: toSmbPath(temp),
          desiredAccess: Access.FILE_WRITE_DATA | Access.FILE_WRITE_ATTRIBUTES | Access.DELETE | READ_ATTRS,
          disposition: Disposition.CREATE,
          createOptions: CreateOptions.NON_DIRECTORY_FILE,
          fileAttributes: FileAttributes.ARCHIVE,
        }),
        writeRequest(RELATED_FILE_ID, 0, firstBlock),
        internalIdRequest(),
      ]).then((responses) => {
        assertStatus(responses[0]!, `CREATE ${tree.shareName}\\${toSmbPath(temp)}`);
        return responses;
      }).catch(async (err: unknown) => {
        // Whatever `decide` took (a lease) must be known to the caller before it cleans up.
        await early?.catch(() => undefined);
        throw err;
      });
      const created = parseCreateResponse(opened[0]!.reader);
      const handle = new FileHandle(tree, toSmbPath(temp), created.fileId, created);
      let mode: CommitMode;
      let replaced: SecurityDescriptor | null;
      let size = firstBlock.length;
      try {
        assertStatus(opened[1]!, `WRITE ${tree.shareName}\\${toSmbPath(temp)}`);
        assertStatus(opened[2]!, `QUERY_INFO ${tree.shareName}\\${toSmbPath(temp)}`);
        for (let next = second; !next.done; next = await blocks.next()) {
          await handle.write(size, next.value);
          size += next.value.length;
        }
        ({ mode, replaced } = await (early ?? decideAndRead()));
        if (replaced) await carryDacl(tree, toSmbPath(temp), replaced);
      } catch (err) {
        await handle.setInfo(FileInfoClass.FileDispositionInformation, dispositionInfo(true)).catch(() => undefined);
        await handle.close().catch(() => undefined);
        throw err;
      }
      const fileId = parseInternalIdResponse(opened[2]!);
      const replace = mode === 'replace' || replaced !== null;
      const done = await tree.compound([
        setInfoRequest(handle.fileId, InfoType.FILE, FileInfoClass.FileRenameInformation, renameInfo(toSmbPath(path), replace)),
        closeRequest(handle.fileId, true),
      ]);
      let isNew = !replace;
      if (done[0]!.header.status !== NtStatus.SUCCESS) {
        // The CLOSE of the same round trip ran: the temporary file is closed but still there.
        try {
          if (mode !== 'create-or-replace' || done[0]!.header.status !== NtStatus.OBJECT_NAME_COLLISION) {
            assertStatus(done[0]!, `rename to ${tree.shareName}\\${toSmbPath(path)}`);
          }
          // Created meanwhile: replaced like any other file, with its DACL carried over.
          await carryCurrentDacl(tree, toSmbPath(path), toSmbPath(temp));
          await renameByPath(tree, temp, path, true);
          isNew = false;
        } catch (err) {
          await deleteByPath(tree, temp).catch(() => undefined);
          throw err;
        }
      }
      // Times can still change at CLOSE (pending write time), so they come from the CLOSE itself.
      const closed = parseCloseResponse(done[1]!.reader);
      const entry: DavEntry = {
        share: this.share, path, name: baseName(path), isCollection: false, size: closed.endOfFile, fileId,
        mtimeMs: closed.lastWriteTime, birthtimeMs: closed.creationTime,
      };
      return { entry, created: isNew };
    });
  }

  mkdir(path: string): Promise<void> {
    return this.smb.mkdir(path);
  }

  rename(from: string, to: string, replace: boolean): Promise<void> {
    return this.smb.rename(from, to, { replace });
  }

  removeFile(path: string): Promise<void> {
    return this.smb.unlink(path);
  }

  removeFolder(path: string): Promise<void> {
    return this.smb.rmdir(path);
  }
}

/**
 * Runs a read again when the connection dropped under it: the pool has discarded the connection by then and
 * reconnects (it retries only its own idempotent operations, and withTree is not one of them). A timeout is not
 * retried, so that an unreachable server costs one connect timeout, not two.
 */
async function onceMore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof SmbError && (err.code === 'CONNECTION_CLOSED' || err.code === 'SESSION_EXPIRED'))) throw err;
    return read();
  }
}

function readParams(path: string): CreateParams {
  return {
    name: toSmbPath(path),
    desiredAccess: Access.FILE_READ_DATA | READ_ATTRS,
    disposition: Disposition.OPEN,
    createOptions: CreateOptions.NON_DIRECTORY_FILE,
  };
}

function renameByPath(tree: Tree, from: string, to: string, replace: boolean): Promise<void> {
  return setInfoByPath(tree, { name: toSmbPath(from), desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN },
    FileInfoClass.FileRenameInformation, renameInfo(toSmbPath(to), replace));
}

function deleteByPath(tree: Tree, path: string): Promise<void> {
  return setInfoByPath(tree, { name: toSmbPath(path), desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN },
    FileInfoClass.FileDispositionInformation, dispositionInfo(true));
}

/** Regroups a stream of chunks into blocks of WRITE_BLOCK bytes (the last may be shorter). */
async function* inBlocks(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
    while (size >= WRITE_BLOCK) {
      const all = Buffer.concat(parts, size);
      yield all.subarray(0, WRITE_BLOCK);
      parts = [all.subarray(WRITE_BLOCK)];
      size -= WRITE_BLOCK;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}
