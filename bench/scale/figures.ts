/**
 * The figures of the scale bench's table, their targets and their verdicts (issue 32's targets, issue 44's rule: a
 * figure is met only when its target is met and nothing behind it was unexpected at any size: a job that did not do
 * all its work, a search answered other than 200 or degraded, a save never found).
 */
import { jobShortfalls } from '../job-outcome.js';
import { Unexpected } from '../results.js';
import { WRITERS as SAVE_WRITERS, type SaveToSearch } from '../index/save-to-search.js';
import type { SizeFigures } from './size.js';

/** Growth from the first to the last size (time: linear and 5 % more), and the save's ceiling, for every save. */
export const TARGET = { timeGrowthOverLinear: 1.05, peakRssGrowth: 1.15, searchP99Growth: 1.5, saveP99Ms: 1500, isolation: 1.5 };

/** A figure of the table: its value at a size, and the target on its growth or its ceiling, if any. */
export interface Figure {
  name: string;
  digits: number;
  value(s: SizeFigures): number;
  /** `linear`: at most TARGET.timeGrowthOverLinear × the pages' growth; a number: at most that growth; `ceiling`: at most that at every size. */
  growth?: 'linear' | number;
  ceiling?: number;
  /** What went wrong behind the figure at a size; any of it at any size and the figure is not met. */
  unexpected?(s: SizeFigures): Unexpected;
}

const reindexShortfalls = (s: SizeFigures) => jobShortfalls('reindex', s.reindex.job, { pages: s.pages, count: 'indexed' });
const passShortfalls = (s: SizeFigures) => jobShortfalls('no-change pass', s.pass.job, { pages: s.pages, count: 'seen' });
const lost = (target: string, saves: SaveToSearch) => new Unexpected().add(target, 'lost (never found)', saves.lost);

export const MiB = 2 ** 20;
export const FIGURES: Figure[] = [
  { name: 'full reindex, s', digits: 1, value: (s) => s.reindex.job.durationMs / 1000, growth: 'linear', unexpected: reindexShortfalls },
  { name: 'no-change pass, s', digits: 1, value: (s) => s.pass.job.durationMs / 1000, growth: 'linear', unexpected: passShortfalls },
  { name: 'first pass (indexes the pages new at this size), s', digits: 1, value: (s) => s.firstPass.durationMs / 1000 },
  { name: 'service peak RSS (reindex and pass), MiB', digits: 0, value: (s) => s.peakRss / MiB, growth: TARGET.peakRssGrowth, unexpected: (s) => reindexShortfalls(s).with(passShortfalls(s)) },
  { name: 'service settled RSS, MiB', digits: 0, value: (s) => s.settledRss / MiB },
  { name: 'search p50 through the service, ms', digits: 1, value: (s) => s.search.service.p50 },
  { name: 'search p99 through the service, ms', digits: 1, value: (s) => s.search.service.p99, growth: TARGET.searchP99Growth, unexpected: (s) => s.search.service.unexpected },
  { name: 'search p50 straight to Elasticsearch, ms', digits: 1, value: (s) => s.search.direct.p50 },
  { name: 'search p99 straight to Elasticsearch, ms', digits: 1, value: (s) => s.search.direct.p99 },
  { name: 'WebDAV save → searchable p99, ms', digits: 0, value: (s) => s.saves.p99, ceiling: TARGET.saveP99Ms, unexpected: (s) => lost('WebDAV saves', s.saves) },
  // The saves that wait for the pool threads to start are a teacher's first saves of a morning: the same ceiling.
  {
    name: `WebDAV save → searchable, the first after the pool threads ended (slowest of ${SAVE_WRITERS}), ms`, digits: 0, value: (s) => s.firstSaves.max,
    ceiling: TARGET.saveP99Ms, unexpected: (s) => lost('first WebDAV saves', s.firstSaves),
  },
  { name: 'WebDAV save answered (PUT) p99, ms', digits: 0, value: (s) => s.saves.made.p99 },
  { name: 'WebDAV save → held by Elasticsearch (before the refresh) p99, ms', digits: 0, value: (s) => s.saves.indexed?.p99 ?? NaN },
  { name: 'change watch handles', digits: 0, value: (s) => s.idle.handles },
  { name: 'service CPU at settled idle, % of a core', digits: 2, value: (s) => s.idle.service * 100 },
];

export function growthLimit(figure: Figure, pagesGrowth: number): number | undefined {
  return figure.growth === 'linear' ? TARGET.timeGrowthOverLinear * pagesGrowth : figure.growth;
}

/** What went wrong behind a figure over all sizes; undefined when the figure is not made of work that can go wrong. */
export function unexpectedOf(figure: Figure, all: SizeFigures[]): Unexpected | undefined {
  return figure.unexpected && all.reduce((u, s) => u.with(figure.unexpected!(s)), new Unexpected());
}

/** Whether a figure's value meets its target over all sizes; undefined when it has none. */
export function targetMet(figure: Figure, all: SizeFigures[]): boolean | undefined {
  const first = all[0]!;
  const last = all.at(-1)!;
  const limit = growthLimit(figure, last.pages / first.pages);
  if (limit !== undefined) return figure.value(last) / figure.value(first) <= limit;
  if (figure.ceiling !== undefined) return all.every((s) => figure.value(s) <= figure.ceiling!);
  return undefined;
}

/** The verdict: its target met and nothing behind it unexpected at any size; undefined when it has no target. */
export function met(figure: Figure, all: SizeFigures[]): boolean | undefined {
  const reached = targetMet(figure, all);
  return reached === undefined ? undefined : reached && (unexpectedOf(figure, all)?.total ?? 0) === 0;
}
