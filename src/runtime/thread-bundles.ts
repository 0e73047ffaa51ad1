// Where a thread's code is. Every thread the service starts (an actor, a pool thread) runs one bundle: its entry
// module (actors/<kind>/main.js of an actor, actors/<kind>/task.js of a pool) with every module and package it
// imports, in its entry file and a few chunks shared with other threads, which `npm run build` writes below
// dist/threads/ (packaging/thread-bundles.ts). A thread that loads a few files instead of some hundreds of modules
// is ready in less time and CPU (bench/RESULTS.md, "Thread start"): what an actor's restart and the first save
// after a quiet spell wait for.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installRoot } from '../common/install-root.js';

/** The folder of the bundles, below the installation root; a bundle keeps its entry's path below dist/. */
export const THREAD_BUNDLES_DIR = join('dist', 'threads');

/** The bundle of the entry module `entry`, given by its path below dist/ (e.g. actors/reconciler/main.js). */
export function threadBundle(entry: string): URL {
  return pathToFileURL(join(installRoot(), THREAD_BUNDLES_DIR, entry));
}
