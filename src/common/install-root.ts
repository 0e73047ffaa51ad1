// The root of the installation: the folder that holds the service's package.json, which is the checkout or
// /usr/lib/edu-fileproxy of the Debian package. Found by walking up from this module rather than by a fixed number
// of `../`, because the module runs at two depths: compiled as dist/src/common/install-root.js in the main thread, and
// inside a thread's bundle below dist/threads/ (src/runtime/thread-bundles.ts).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function installRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  root = dir;
  return root;
}
