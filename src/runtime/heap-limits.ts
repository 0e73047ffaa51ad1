// V8 heap limits of the worker threads. V8 sizes every thread's heap from the machine's memory, so ten threads
// under load grow far beyond what they hold (a reindex showed it: bench/RESULTS.md, Figures from source comments).
// A small young generation costs more frequent, short scavenges, and more promotion where much is allocated (so
// the pool threads get a larger one, POOL_HEAP_LIMITS). An old-generation cap is given only to threads
// whose data is transient (the pools, the reconciler), so that they collect early instead of growing; a thread over its cap
// dies and is replaced (a pool fails the one task, an actor restarts), never the process.
import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

const YOUNG_GENERATION_MB = 2;
const TRANSIENT_OLD_GENERATION_MB = 96;

/** For the reconciler, which streams pages through bounded batches. */
export const TRANSIENT_HEAP_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
  maxOldGenerationSizeMb: TRANSIENT_OLD_GENERATION_MB,
};

/**
 * For the pool threads, which read and render pages and hand them back: each page is garbage a moment later, and in
 * a young generation of 2 MiB much of it survived a scavenge or two and was promoted, to be marked by V8's helper
 * threads. 8 MiB costs a reindex less CPU per page (bench/RESULTS.md, Rendering pages; in a pools bench of 5,000 pages
 * 1,269 µs of service CPU a page against 1,501 and 1,479 µs for the build before) for 28 MB more peak RSS; 16 MiB
 * saved little more for 44 MB. A pool thread runs only while there is work (an idle one ends): no idle memory.
 */
export const POOL_HEAP_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: 8,
  maxOldGenerationSizeMb: TRANSIENT_OLD_GENERATION_MB,
};

/**
 * For the actors that keep state of their own (webhook clients, user events, locks) whose size the configuration
 * decides: only their young generation is capped.
 */
export const STATEFUL_HEAP_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };

/**
 * Where each thread's first mark-compact comes, in MiB of old generation. V8 starts a heap with a high limit but
 * lowers it from how much survives the first scavenges, so the pool threads, whose pages survive a scavenge or two
 * before they are garbage, marked their whole heap every few hundred pages (the busiest of them 24 times per 10,000
 * pages as its old generation grew from 15 to 25 MB). A limit that V8 keeps as given lets that garbage go in
 * scavenges and fewer, later mark-compacts; V8 takes at most half a thread's maxOldGenerationSizeMb. Measured
 * (bench/RESULTS.md, What a pass and a rebuild cost a page: 10,000 pages, 6 rounds, against the build before): 32 MiB
 * took the service's CPU per page in a rebuild from 473 to 435 µs (lower in 5 of 6 rounds) and in a no-change pass
 * from 98 to 77 µs (in all 6), for 9 MiB more peak RSS (482 against 473 MiB); the idle RSS stayed where it was
 * (bench/RESULTS.md, Idle memory: 236.1 MiB, the build before 235.4 in a run of the same day). The same bench with
 * 64 MiB saved more (505 → 398 and 91 → 63 µs) for 88 MiB more peak RSS.
 */
const INITIAL_OLD_GENERATION_MB = 32;

/**
 * Sets where the old generation of every thread started from now on begins (INITIAL_OLD_GENERATION_MB). A V8 flag is
 * the only way: a Worker's resourceLimits have no initial size, and a flag on the command line would have to be given
 * by every way the service is started (the unit, `npm run demo`, the tests, the benches). V8 reads it when it makes a
 * thread's heap, so the supervisor sets it before it starts its first thread.
 */
export function setInitialOldGeneration(): void {
  setFlagsFromString(`--initial-old-space-size=${INITIAL_OLD_GENERATION_MB}`);
}
