// MOVE and COPY over an existing destination (Overwrite: T) without a moment in
// which the old destination is gone and the new one is not there: RFC 4918 says
// the destination is deleted first, but another SMB client holding the source
// (an open without delete sharing, a byte-range lock) can make the step after
// the delete fail, and the destination would be lost. So nothing is deleted
// until what replaces it stands complete:
// - a file over a file is one rename that replaces (MOVE), or a rename over the
//   destination of a complete copy beside it (COPY);
// - where a collection is involved, the old destination is first renamed aside
//   under a hidden name (tempNameBeside) in its own folder, and renamed back if
//   the move or copy fails; only then is it removed.
// The caller has asked the file server whether this user may delete the
// destination: a rename that replaces is not checked for that.
import { tempNameBeside } from '../smb/index.js';
import type { LockDepth } from './locks.js';
import type { DavEntry } from './properties.js';
import type { DavStorage } from './storage.js';
import { copyFile, copyTree, removeTree, type TreeResult } from './tree-ops.js';

export interface Replaced extends TreeResult {
  /** Files of the old destination that are gone, at the paths they had (for the post-write hook). */
  removed: string[];
}

export async function moveOver(storage: DavStorage, source: DavEntry, existing: DavEntry, to: string): Promise<Replaced> {
  if (!source.isCollection && !existing.isCollection) {
    await storage.rename(source.path, to, { replace: true });
    return { files: [to], failures: [], removed: [] };
  }
  return replaceAside(storage, existing, to, async () => {
    await storage.rename(source.path, to);
    return { files: [], failures: [] };
  });
}

export async function copyOver(storage: DavStorage, source: DavEntry, existing: DavEntry, to: string, depth: LockDepth): Promise<Replaced> {
  if (!source.isCollection && !existing.isCollection) {
    const beside = tempNameBeside(to);
    await copyFile(storage, source, beside);
    try {
      await storage.rename(beside, to, { replace: true });
    } catch (err) {
      await storage.removeFile(beside).catch(() => undefined);
      throw err;
    }
    return { files: [to], failures: [], removed: [] };
  }
  return replaceAside(storage, existing, to, async () => {
    const copied = await copyTree(storage, source, to, depth);
    if (copied.failures.length === 0) return copied;
    // Part of the copy failed: what was copied goes, so that the old destination can come back whole.
    const undone = await removeTree(storage, { ...source, path: to });
    if (undone.failures.length > 0) return copied; // the partial copy stays; the client learns what failed (207)
    throw new PartialCopyError(copied);
  });
}

/** A copy that failed in part and was undone: the old destination is put back and the failures answered. */
export class PartialCopyError extends Error {
  constructor(readonly result: TreeResult) {
    super('part of the copy failed; the destination was left as it was');
  }
}

/**
 * Renames the old destination aside, runs `place` (which puts the new one at `to`), and removes the old one once
 * `place` succeeded; puts it back when `place` fails.
 */
async function replaceAside(storage: DavStorage, existing: DavEntry, to: string, place: () => Promise<TreeResult>): Promise<Replaced> {
  const aside = tempNameBeside(to);
  await storage.rename(to, aside);
  let placed: TreeResult;
  try {
    placed = await place();
  } catch (err) {
    await storage.rename(aside, to);
    throw err;
  }
  const removed = await removeTree(storage, { ...existing, path: aside });
  const atOldPath = (path: string): string => to + path.slice(aside.length);
  return {
    files: placed.files,
    // What of the old destination could not be removed stays under its hidden name; the client learns of it.
    failures: [...placed.failures, ...removed.failures],
    removed: removed.files.map(atOldPath),
  };
}
