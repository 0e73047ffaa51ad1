/**
 * How the file server's verdicts spread over users and pages. Leaks and misses are counted against these verdicts,
 * so a matrix whose verdicts are degenerate (all taken as one account, all granted, all refused) would pass those
 * checks for nothing; the bounds below fail it first.
 *
 * Seeds 1-20 and 695729313 of the fixture (30 users, 200 pages) gave 58-75 % readable (user, page) pairs, 75-123
 * pages readable by some users and not others, and 28-30 different readable sets; the bounds leave wide margins.
 */
import assert from 'node:assert/strict';

export const SPREAD_BOUNDS = {
  /** Share of all (user, page) pairs the file server grants: neither (nearly) none nor (nearly) all. */
  minReadable: 0.15,
  maxReadable: 0.85,
  /** Pages that some users may read and others may not. */
  minSplitPages: 50,
  /** Different sets of readable pages among the users (one account's verdicts for all would give 1). */
  minDistinctSets: 15,
} as const;

export interface VerdictSpread {
  /** (user, page) pairs the file server grants. */
  readable: number;
  /** All (user, page) pairs. */
  pairs: number;
  splitPages: number;
  distinctSets: number;
}

/** `granted`: user → the pages the file server lets that user read; `pages`: every page of the fixture. */
export function verdictSpread(granted: ReadonlyMap<string, ReadonlySet<string>>, pages: readonly string[]): VerdictSpread {
  const sets = [...granted.values()];
  const readers = (page: string) => sets.filter((set) => set.has(page)).length;
  return {
    readable: sets.reduce((n, set) => n + set.size, 0),
    pairs: sets.length * pages.length,
    splitPages: pages.filter((page) => readers(page) > 0 && readers(page) < sets.length).length,
    distinctSets: new Set(sets.map((set) => [...set].sort().join('\n'))).size,
  };
}

export function describeSpread(spread: VerdictSpread, users: number): string {
  const { minReadable, maxReadable, minSplitPages, minDistinctSets } = SPREAD_BOUNDS;
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  return (
    `readable ${spread.readable} of ${spread.pairs} (user, page) = ${percent(spread.readable / spread.pairs)} (band ${percent(minReadable)}-${percent(maxReadable)}); ` +
    `pages some users may read and others not: ${spread.splitPages} (at least ${minSplitPages}); ` +
    `different readable sets: ${spread.distinctSets} of ${users} users (at least ${minDistinctSets})`
  );
}

export function assertSpread(spread: VerdictSpread, when: string): void {
  const share = spread.readable / spread.pairs;
  assert.ok(share >= SPREAD_BOUNDS.minReadable && share <= SPREAD_BOUNDS.maxReadable, `readable share ${share.toFixed(3)} outside the band ${when}`);
  assert.ok(spread.splitPages >= SPREAD_BOUNDS.minSplitPages, `only ${spread.splitPages} pages readable by some users and not others ${when}`);
  assert.ok(spread.distinctSets >= SPREAD_BOUNDS.minDistinctSets, `only ${spread.distinctSets} different readable sets ${when}`);
}
