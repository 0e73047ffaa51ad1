/**
 * A file replaced by a streamed body of any size, atomically for readers: the body goes to a temporary file
 * in the same folder, the caller decides how the target may be replaced (after the data is written, so that
 * its checks hold at the rename), and the temporary file is renamed over the target. The replaced file's DACL
 * is carried over first (replace.ts). SmbShare.upload is the facade's entry; `writeFile` there is the
 * in-memory variant, which retries a rename over a file open elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { assertStatus } from './connection.js';
import { NtStatus } from './errors.js';
import { FileInfoClass, dispositionInfo, renameInfo } from './fscc.js';
import {
  Access, CreateOptions, Disposition, FileAttributes, InfoType, READ_ATTRS, RELATED_FILE_ID, closeRequest, createRequest,
  parseCloseResponse, parseCreateResponse, setInfoRequest, writeRequest, type CloseAttributes,
} from './messages.js';
import { FileHandle, internalIdRequest, parseInternalIdResponse, setInfoByPath } from './open.js';
import { joinPath, splitPath, toSmbPath } from './paths.js';
import { carryCurrentDacl, carryDacl, replacedDacl } from './replace.js';
import type { SecurityDescriptor } from './security-descriptor.js';
import type { Tree } from './tree.js';

/** Upload data is written in blocks of this size (and streamed reads read in blocks of it). */
export const BLOCK_SIZE = 1024 * 1024;

/** Temporary files of uploads in progress (and of writeFile), for listings to hide. */
export const TEMP_NAME = /^\..+\.~[0-9a-f]{12}\.tmp$/;

/** How an upload replaces its target, decided after the data is written and right before the rename. */
export type CommitMode = 'replace' | 'create' | 'create-or-replace';

export interface Uploaded {
  /** The new version's attributes, from the CLOSE (times can still change at CLOSE: pending write time). */
  attributes: CloseAttributes;
  fileId: string;
  /** The target did not exist before. */
  created: boolean;
}

/**
 * Writes `chunks` to a temporary file next to `path`, calls `decide` (which may check preconditions and
 * locks, or throw to abandon the upload) and renames the temporary file over the target as decided. For a
 * body of more than one block `decide` runs after all data is written; for one block, during its write.
 * Readers see the old or the new version, never a part. A replaced file's DACL is read while `decide` runs
 * and carried over to the new content before the rename; if that fails, the upload fails with
 * SECURITY_NOT_CARRIED and the old content stays.
 */
export async function upload(tree: Tree, path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<Uploaded> {
  const { dir, base } = splitPath(path);
  // Shortened so that the temporary name of a 255-character name is still a valid name.
  const temp = joinPath(dir, `.${base.slice(0, 200)}.~${randomBytes(6).toString('hex')}.tmp`);
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
  return { attributes: parseCloseResponse(done[1]!.reader), fileId, created: isNew };
}

function renameByPath(tree: Tree, from: string, to: string, replace: boolean): Promise<void> {
  return setInfoByPath(tree, { name: toSmbPath(from), desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN },
    FileInfoClass.FileRenameInformation, renameInfo(toSmbPath(to), replace));
}

function deleteByPath(tree: Tree, path: string): Promise<void> {
  return setInfoByPath(tree, { name: toSmbPath(path), desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN },
    FileInfoClass.FileDispositionInformation, dispositionInfo(true));
}

/** Regroups a stream of chunks into blocks of BLOCK_SIZE bytes (the last may be shorter). */
async function* inBlocks(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
    while (size >= BLOCK_SIZE) {
      const all = Buffer.concat(parts, size);
      yield all.subarray(0, BLOCK_SIZE);
      parts = [all.subarray(BLOCK_SIZE)];
      size -= BLOCK_SIZE;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}
