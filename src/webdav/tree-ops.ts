// Recursive DELETE and COPY on top of single-file SMB operations: SMB has no
// recursive delete and no server-side copy through our client. Failures of
// single members are collected (RFC 4918 answers them in a 207).
import { retryWhileRefused, SmbError } from '../smb/index.js';
import type { LockDepth } from './locks.js';
import type { DavEntry } from './properties.js';
import type { DavStorage } from './storage.js';

export interface MemberFailure {
  path: string;
  isCollection: boolean;
  error: unknown;
}

export interface TreeResult {
  /** Files removed or created (share paths), for the post-write hook. */
  files: string[];
  failures: MemberFailure[];
}

/** Members handled at once. */
const CONCURRENCY = 8;

export async function removeTree(storage: DavStorage, root: DavEntry): Promise<TreeResult> {
  if (!root.isCollection) {
    await storage.removeFile(root.path);
    return { files: [root.path], failures: [] };
  }
  const members = await collect(storage.walk(root.path));
  const result: TreeResult = { files: [], failures: [] };
  await inParallel(members.filter((m) => !m.isCollection), async (f) => {
    await storage.removeFile(f.path);
    result.files.push(f.path);
  }, result.failures);
  const folders = [...members.filter((m) => m.isCollection), root].sort((a, b) => depthOf(b.path) - depthOf(a.path));
  for (const folder of folders) {
    try {
      await (result.failures.length === 0 ? removeEmptiedFolder(storage, folder.path) : storage.removeFolder(folder.path));
    } catch (err) {
      // A folder that still holds a member that failed is not a failure of its own.
      if (!(err instanceof SmbError && err.code === 'DIRECTORY_NOT_EMPTY' && result.failures.length > 0)) {
        result.failures.push({ path: folder.path, isCollection: true, error: err });
      }
    }
  }
  return result;
}

/** Waits between the attempts of removeEmptiedFolder: about 3 s in all, for a holder on a busy host. */
const NOT_YET_EMPTY_WAITS_MS = [10, 20, 50, 100, 200, 400, 800, 1500];

/**
 * Removes a folder whose members were all removed. SMB removes a deleted folder only when the last client that has
 * it open closes it (another client's change watch, such as the reconciler's watch of a `.wiki/` folder, an Explorer
 * window or a virus scanner); the server tells that client at once, and until it closes, the parent is reported
 * not empty. A moment later it is.
 */
function removeEmptiedFolder(storage: DavStorage, path: string): Promise<void> {
  return retryWhileRefused(() => storage.removeFolder(path), 'DIRECTORY_NOT_EMPTY', NOT_YET_EMPTY_WAITS_MS);
}

/** Every member below `root` with the path it gets under `to`. */
export async function membersMapped(storage: DavStorage, root: DavEntry, to: string): Promise<{ entry: DavEntry; target: string }[]> {
  const members = await collect(storage.walk(root.path));
  return members.map((entry) => ({ entry, target: to + entry.path.slice(root.path.length) }));
}

export async function copyTree(storage: DavStorage, from: DavEntry, to: string, depth: LockDepth): Promise<TreeResult> {
  if (!from.isCollection) {
    await copyFile(storage, from, to);
    return { files: [to], failures: [] };
  }
  await storage.mkdir(to);
  const result: TreeResult = { files: [], failures: [] };
  if (depth === '0') return result;
  const members = await membersMapped(storage, from, to);
  const folders = members.filter((m) => m.entry.isCollection).sort((a, b) => depthOf(a.target) - depthOf(b.target));
  for (const { target } of folders) {
    try {
      await storage.mkdir(target);
    } catch (err) {
      result.failures.push({ path: target, isCollection: true, error: err });
    }
  }
  const failedFolders = result.failures.map((f) => `${f.path}/`);
  const files = members.filter((m) => !m.entry.isCollection && !failedFolders.some((d) => m.target.startsWith(d)));
  await inParallel(files, async ({ entry, target }) => {
    await copyFile(storage, entry, target);
    result.files.push(target);
  }, result.failures, (m) => m.target);
  return result;
}

/**
 * Copies a file's content to `to` (created or written over in place): the whole source is read before the
 * destination is touched (a page in memory, a larger file in the upload's staging file).
 */
export function copyFile(storage: DavStorage, from: DavEntry, to: string): Promise<unknown> {
  const content = from.size === 0 ? emptyStream() : storage.readBlocks(from, 0, from.size - 1);
  return storage.upload(to, content, async () => 'create-or-replace');
}

async function* emptyStream(): AsyncGenerator<Buffer> {}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function depthOf(path: string): number {
  return path.split('/').length;
}

async function inParallel<T extends DavEntry | { entry: DavEntry; target: string }>(
  items: readonly T[],
  work: (item: T) => Promise<void>,
  failures: MemberFailure[],
  pathOf: (item: T) => string = (item) => (item as DavEntry).path,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failures.push({ path: pathOf(item), isCollection: false, error: err });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
