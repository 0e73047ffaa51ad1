// Before/after pictures of file trees, to prove that requests changed nothing:
// a share as SMB shows it, and a folder on the DC's disk. Each entry is
// "path|size|mtime", sorted.
import { readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SmbShare } from '../../src/smb/index.js';

/** Every entry of a share with size and time, except the `_...` scratch folders other tests create meanwhile. */
export async function shareSnapshot(share: SmbShare): Promise<string[]> {
  const names: string[] = [];
  for await (const e of share.walk('', { descend: (d) => !d.path.startsWith('_') })) {
    if (!e.path.startsWith('_')) names.push(`${e.path}|${e.size}|${e.mtimeMs}`);
  }
  return names.sort();
}

/** Every entry under `dir` on the local disk (links not followed), except the paths (relative, '/'-separated) `skip` names. */
export async function diskSnapshot(dir: string, skip: (path: string) => boolean = () => false): Promise<string[]> {
  const names: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    for (const name of await readdir(join(dir, relative))) {
      const path = relative === '' ? name : `${relative}/${name}`;
      if (skip(path)) continue;
      const stat = await lstat(join(dir, path));
      names.push(`${path}|${stat.isDirectory() ? 'dir' : stat.size}|${stat.mtimeMs}`);
      if (stat.isDirectory()) await visit(path);
    }
  };
  await visit('');
  return names.sort();
}
