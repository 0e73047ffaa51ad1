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

/**
 * What a pool's threads load for the task bundle of `entry` (e.g. actors/indexer/task.js): the CommonJS loader that
 * the build writes beside it (poolTaskLoader), never the bundle itself. Why: piscina loads a task file with
 * require(), which for an ES module is Node's require(esm), and a thread terminated while that runs aborts the whole
 * process (Node 24.21: "Assertion failed: facade->InstantiateModule(...)" in CreateRequiredModuleFacade). Pool
 * threads are terminated while they load whenever their pool closes as they start: a reconciler restarted soon after
 * its start, as in the supervisor test of stop 52's CI, whose process died so. import() of the bundle, which the
 * loader does, turns the same termination into a rejected promise.
 */
export function poolTaskBundle(entry: string): URL {
  return threadBundle(entry.replace(/\.js$/, POOL_TASK_LOADER_EXTENSION));
}

/** The file name ending of a pool task bundle's loader, which makes it CommonJS whatever package.json says. */
export const POOL_TASK_LOADER_EXTENSION = '.cjs';

/**
 * The source of the loader of the pool task bundle `bundleFile` (a file name in the loader's folder). It starts the
 * bundle's import at once, so that the first task does not wait for it, and runs each task with the bundle's default
 * export; a bundle that fails to load fails every task with its error (not the thread, which piscina would only
 * start again).
 */
export function poolTaskLoader(bundleFile: string): string {
  return [
    "'use strict';",
    `// The loader of ${bundleFile} for piscina (src/runtime/thread-bundles.ts, poolTaskBundle, says why).`,
    `const bundle = import(${JSON.stringify(`./${bundleFile}`)});`,
    'bundle.catch(() => undefined);',
    'module.exports = async function runTask(task) { return (await bundle).default(task); };',
    '',
  ].join('\n');
}
