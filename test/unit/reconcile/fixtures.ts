/** Shared pieces of the reconcile tests. */
import type { PageFacts } from '../../../src/indexing/listing.js';
import { EVERYONE_SID } from '../../../src/wiki/acl.js';

/** What a listing says of a page besides its name; the reconcile logic only passes it on. */
export const FACTS: PageFacts = {
  size: 100,
  modified: 0,
  acl: { allow: [EVERYONE_SID], deny: [] },
};

/** Deterministic random integers below n (mulberry32), for reproducible random cases in the reconcile tests. */
export function randomInts(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}
