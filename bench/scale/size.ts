/**
 * The figures of one size of the scale bench, from one service started after that size was seeded: its first pass
 * (which indexes the pages seeded since the last size), a full reindex, a no-change pass, the service's peak RSS
 * over both, search latency through the service and straight to Elasticsearch, save → searchable (the first saves
 * after the pool threads ended, then the saves that follow), and at settled idle the change watch's handles, the
 * service's CPU and its settled RSS.
 */
import type { Client } from '@elastic/elasticsearch';
import type { PassSummary } from '../../actors/reconciler/metrics.js';
import { startJob } from '../../src/control-socket/client.js';
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { socketOf } from '../../test/integration/reconcile/support.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { reindexAll } from '../index/reindex.js';
import { poolThreadsEnded, saveToSearch, WRITERS as SAVE_WRITERS, type SaveToSearch } from '../index/save-to-search.js';
import { settledIdleCpu, type IdleCpu } from '../index/watch-idle.js';
import { measureCost, type WorkCost } from '../index/work-cost.js';
import { mebibytes, residentBytes, rssSampler } from '../stats.js';
import { startSystemProfile, type SystemProfile } from '../system-profile.js';
import { searchLatencies, type SearchLatency, type SearchWork } from './search-latency.js';

export interface SizeFigures {
  pages: number;
  firstPass: PassSummary;
  /** `profile`: every core sampled over the work, when the run takes profiles (system-profile.ts). */
  reindex: { job: JobInfo; wallMs: number; cost: WorkCost; profile?: SystemProfile };
  pass: { job: JobInfo; cost: WorkCost; profile?: SystemProfile };
  /** Bytes: the peak over the reindex and the pass, and after settled idle. */
  peakRss: number;
  settledRss: number;
  search: { service: SearchLatency; direct: SearchLatency; work: SearchWork };
  /** One save by each writer once the pool threads had ended: each waits for threads to start. */
  firstSaves: SaveToSearch;
  /** Where the first saves' time went: the CPU of each process meanwhile, and Elasticsearch's merging. */
  firstSavesCost: { cost: WorkCost; wallMs: number; merges: MergeWork };
  /** The saves that follow them (the hook keeps a thread of each pool meanwhile). */
  saves: SaveToSearch;
  idle: IdleCpu;
}

export interface SizeOptions {
  env: TestbedEnv;
  es: Client;
  share: string;
  /** The seeded tree and how many pages it holds now. */
  root: string;
  pages: number;
  saves: number;
  idleMs: number;
  /** Whether to sample every core over the reindex and the pass. */
  profile: boolean;
}

const RSS_SAMPLE_MS = 250;
/** Settled RSS is read after at least this long at settled idle. */
const SETTLED_RSS_AFTER_MS = 15_000;
/** The first pass of the largest size indexes hundreds of thousands of pages. */
const FIRST_PASS_GIVE_UP_MS = 3 * 60 * 60 * 1000;

/** `started`: when the service was started (Date.now()), so that its first pass is told from none. */
export async function measureSize(service: RunningService, started: number, options: SizeOptions): Promise<SizeFigures> {
  const { env, es, share, root, pages } = options;
  const pid = service.process.pid!;
  const firstPass = await passAfter(service, started, FIRST_PASS_GIVE_UP_MS);
  console.log(`${pages} pages: first pass indexed ${firstPass.indexed} in ${(firstPass.durationMs / 1000).toFixed(1)} s`);

  const rss = rssSampler(pid, RSS_SAMPLE_MS);
  const reindexed = await profiled(pid, options.profile, () => measureCost(pid, () => reindexAll(service)));
  const reindex = { job: reindexed.result.result.report, wallMs: reindexed.result.result.wallMs, cost: reindexed.result.cost, profile: reindexed.profile };
  const passed = await profiled(pid, options.profile, () => measureCost(pid, async () => (await startJob(socketOf(service), { kind: 'pass' })).finished));
  const pass = { job: passed.result.result, cost: passed.result.cost, profile: passed.profile };
  const peakRss = rss.stop();
  console.log(`${pages} pages: reindex ${reindex.job.indexed} in ${(reindex.job.durationMs / 1000).toFixed(1)} s, no-change pass ${pass.job.seen} in ${(pass.job.durationMs / 1000).toFixed(1)} s, peak RSS ${mebibytes(peakRss, 0)} MiB`);

  const search = await searchLatencies(env, service.url, share);
  console.log(`${pages} pages: search p50/p99 service ${search.service.p50.toFixed(1)}/${search.service.p99.toFixed(1)} ms, direct ${search.direct.p50.toFixed(1)}/${search.direct.p99.toFixed(1)} ms`);
  await poolThreadsEnded(service);
  const { result: { saves: firstSaves, wallMs, merges }, cost } = await measureCost(pid, async () => {
    const before = await mergeStats(es);
    const started = performance.now();
    const saves = await saveToSearch(service, env, SAVE_WRITERS);
    const wallMs = performance.now() - started;
    const after = await mergeStats(es);
    return { saves, wallMs, merges: { runningAtStart: before.current, msMeanwhile: after.totalMs - before.totalMs } };
  });
  const firstSavesCost = { cost, wallMs, merges };
  console.log(`${pages} pages: the first ${SAVE_WRITERS} saves after the pool threads ended: searchable after at most ${firstSaves.max.toFixed(0)} ms (held by Elasticsearch p99 ${firstSaves.indexed?.p99.toFixed(0)} ms); meanwhile ${firstSavesWhere(firstSavesCost)}`);
  const saves = await saveToSearch(service, env, options.saves);
  console.log(`${pages} pages: save → searchable p99 ${saves.p99.toFixed(0)} ms (PUT answered p99 ${saves.made.p99.toFixed(0)} ms, held by Elasticsearch p99 ${saves.indexed?.p99.toFixed(0)} ms; ${saves.refreshes.count} refreshes of ${saves.refreshes.meanMs.toFixed(0)} ms; ${saves.polls.count} polling searches p50/p99 ${saves.polls.p50.toFixed(0)}/${saves.polls.p99.toFixed(0)} ms), ${saves.lost} lost`);

  const idle = await settledIdleCpu(service, { es, expected: { root, pages }, idleMs: options.idleMs });
  if (options.idleMs < SETTLED_RSS_AFTER_MS) await new Promise((resolve) => setTimeout(resolve, SETTLED_RSS_AFTER_MS - options.idleMs));
  const settledRss = residentBytes(pid);
  console.log(`${pages} pages: ${idle.handles} watch handles, idle CPU ${(idle.service * 100).toFixed(2)} %, settled RSS ${mebibytes(settledRss, 0)} MiB`);
  return { pages, firstPass, reindex, pass, peakRss, settledRss, search, firstSaves, firstSavesCost, saves, idle };
}

/** Elasticsearch's merging: merges running now (every node, every index) and the time merges took so far. */
export interface MergeWork {
  runningAtStart: number;
  msMeanwhile: number;
}

async function mergeStats(es: Client): Promise<{ current: number; totalMs: number }> {
  const { nodes } = await es.nodes.stats({ metric: 'indices', index_metric: 'merge' });
  const merges = Object.values(nodes).map((node) => node.indices?.merges);
  return {
    current: merges.reduce((sum, m) => sum + (m?.current ?? 0), 0),
    totalMs: merges.reduce((sum, m) => sum + (m?.total_time_in_millis ?? 0), 0),
  };
}

/**
 * Where the first saves' time went: each process's CPU over their wall time (a thread of each pool starts in it, and
 * what the threads that ended meanwhile spent counts under the service only), and Elasticsearch's merging.
 */
export function firstSavesWhere({ cost, wallMs, merges }: SizeFigures['firstSavesCost']): string {
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;
  const most = (byName: Record<string, number>) => Object.entries(byName).filter(([, seconds]) => seconds >= 0.001).sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${ms(seconds)}`).join(', ');
  return `in ${wallMs.toFixed(0)} ms from the first PUT to the last page found, the service used ${ms(cost.service)} of CPU (${most(cost.serviceThreads)}), ` +
    `Elasticsearch ${ms(cost.elasticsearch)} (${most(cost.elasticsearchThreads)}; ${merges.runningAtStart} merges running at the start, ${merges.msMeanwhile.toFixed(0)} ms of merging meanwhile), smbd ${ms(cost.samba)}`;
}

/** `work`, with every core sampled over it when `on`. */
async function profiled<T>(servicePid: number, on: boolean, work: () => Promise<T>): Promise<{ result: T; profile?: SystemProfile }> {
  if (!on) return { result: await work() };
  const running = await startSystemProfile(servicePid);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await running.stop().catch(() => undefined);
    throw error;
  }
  return { result, profile: await running.stop() };
}
