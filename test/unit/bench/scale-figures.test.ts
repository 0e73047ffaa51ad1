// The scale bench's verdicts (bench/scale/figures.ts). At 72dab2a met() judged a growth figure by its ratio alone
// and the save ceiling by the later saves' p99 and losses: a failed reindex, degraded searches and slow or lost first
// saves after a quiet spell all passed. Each case below was met then.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIGURES, met, unexpectedOf } from '../../../bench/scale/figures.js';
import type { SizeFigures } from '../../../bench/scale/size.js';
import { Unexpected } from '../../../bench/results.js';
import { jobInfo } from './job-info.js';

const figure = (start: string) => FIGURES.find((f) => f.name.startsWith(start))!;
const REINDEX = figure('full reindex');
const SEARCH_P99 = figure('search p99 through the service');
const SAVES = figure('WebDAV save → searchable p99');
const FIRST_SAVES = figure('WebDAV save → searchable, the first after');

/** A size whose figures all meet their targets (time per page flat, search p99 flat, saves within 1.5 s); `change` spoils one. */
function size(pages: number, change: (s: SizeFigures) => void = () => undefined): SizeFigures {
  const saves = (p99: number) => ({ changes: 4, lost: 0, p50: p99 / 2, p99, max: p99, made: { p50: 3, p99: 10 }, polls: { p50: 20, p99: 50, count: 40 }, refreshes: { count: 2, meanMs: 50 } });
  const s = {
    pages,
    reindex: { job: jobInfo(pages), wallMs: pages },
    pass: { job: jobInfo(pages, { kind: 'pass', indexed: 0 }) },
    search: { service: { p50: 20, p99: 40, requests: 300, unexpected: new Unexpected() }, direct: { p50: 18, p99: 35, requests: 300, unexpected: new Unexpected() } },
    saves: saves(700),
    firstSaves: saves(900),
  } as unknown as SizeFigures;
  change(s);
  return s;
}

describe('scale bench verdicts', () => {
  it('meets a figure whose target is met and nothing went wrong behind it', () => {
    const all = [size(50_000), size(500_000)];
    for (const f of [REINDEX, SEARCH_P99, SAVES, FIRST_SAVES]) assert.equal(met(f, all), true, f.name);
  });

  it('misses the reindex time when the job failed, left pages or skipped folders, its growth within the target', () => {
    for (const spoil of [{ state: 'failed' as const }, { failed: 12 }, { skippedFolders: 1 }, { indexed: 499_000 }]) {
      const all = [size(50_000), size(500_000, (s) => Object.assign(s.reindex.job, spoil))];
      assert.equal(met(REINDEX, all), false, JSON.stringify(spoil));
    }
  });

  it('misses search p99 when an answer was degraded, its growth within the target', () => {
    const all = [size(50_000, (s) => s.search.service.unexpected.add('service', 'degraded', 3)), size(500_000)];
    assert.equal(met(SEARCH_P99, all), false);
    assert.equal(unexpectedOf(SEARCH_P99, all)?.toString(), 'service: degraded ×3');
  });

  it('judges the first saves after a quiet spell against the save target, their losses counted', () => {
    assert.equal(met(FIRST_SAVES, [size(50_000), size(500_000, (s) => void (s.firstSaves.max = 2350))]), false);
    assert.equal(met(FIRST_SAVES, [size(50_000, (s) => void (s.firstSaves.lost = 1)), size(500_000)]), false);
  });

  it('misses the save p99 when a save was lost at any size', () => {
    assert.equal(met(SAVES, [size(50_000, (s) => void (s.saves.lost = 1)), size(500_000)]), false);
  });
});
