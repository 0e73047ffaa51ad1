// Node's module compile cache for the actor and pool threads: a thread that starts (an actor restarted after a
// crash, a pool thread added when work comes) takes its modules' compiled code from disk instead of compiling them
// again, which shortens an actor's cold start noticeably (bench/RESULTS.md, Figures from source comments). Node
// checks each entry against the module's source and its own version, and ignores one that does not match, so the
// cache needs no care across upgrades.
import module from 'node:module';
import { join } from 'node:path';

/**
 * The environment for threads the supervisor starts: Node enables the cache in each new thread whose environment
 * names its directory (and the threads started by that thread inherit it). NODE_COMPILE_CACHE set by the operator
 * wins; NODE_DISABLE_COMPILE_CACHE=1 turns the cache off.
 */
export function threadEnvironment(dataDir: string): NodeJS.ProcessEnv {
  return { ...process.env, NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] ?? join(dataDir, 'compile-cache') };
}

/**
 * Writes the compiled code of the modules this thread has loaded, which Node would otherwise write only when the
 * thread ends (racing with the start of its successor): call it once the thread is up, before it serves, so that the
 * first restart after an install finds the cache. Entries already on disk are not written again, so that only the
 * first start after an install or an upgrade pays for it.
 */
export function saveCompiledModules(): void {
  module.flushCompileCache();
}
