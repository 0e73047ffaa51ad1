/**
 * What the indexing jobs cost a page: a no-change pass (every page's listing entry and security descriptor read,
 * nothing to write) and `fileproxy reindex --rebuild` (every page of every share read, rendered and written into a
 * new versioned index), over seeded pages, with the CPU of the service, smbd and Elasticsearch and the SMB2 requests
 * per page around each; for this build and, with JOBBENCH_BASELINE=<checkout> (built there), an earlier one, the two
 * alternated round by round in the same run (the host's load drifts):
 *   node dist/bench/index/job-cost.js     (JOBBENCH_PAGES, default 10,000; JOBBENCH_ROUNDS, default 2)
 * Seeds the pages as pools.ts does (seed.ts, on the DC's disk); each round starts a service per build (change watch
 * off, no timed pass, `reconciler.pace: fast`, so that the figures are the pipeline's and not the pacer's), lets its
 * first pass index what is missing, then runs a pass (which finds nothing to do) and a rebuild. Removes the pages
 * and their documents afterwards and writes its section of bench/RESULTS.md. No target: the section says what the
 * jobs cost, and what a change to them saved. Each job's window is printed for profile-summary.ts (with
 * SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=...', where the service's threads spent that job's time).
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { startJob } from '../../src/control-socket/client.js';
import { socketOf } from '../../test/integration/reconcile/support.js';
import { monotonicUs } from '../profile-summary.js';
import { percentile } from '../stats.js';
import { loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { jobShortfalls } from '../job-outcome.js';
import { reindexJob } from './reindex.js';
import { baselineBuild, THIS_BUILD, withService, type Build } from './builds.js';
import { countSmbRequests, cpuPer, measureCost, requestsPer, threadsPer, type WorkCost } from './work-cost.js';
import { removeSeed, removeSeedDocuments, seedClients, seedWiki } from './seed.js';

const PAGES = Number(process.env['JOBBENCH_PAGES'] ?? 10_000);
const ROUNDS = Number(process.env['JOBBENCH_ROUNDS'] ?? 2);
const SHARE = 'schule';
const ROOT = 'zz-jobbench';
const HEADING = '## What a pass and a rebuild cost a page';
const SCRIPT = 'dist/bench/index/job-cost.js';

/** One job of one build, measured. */
interface Measured {
  build: Build;
  job: JobInfo;
  cost: WorkCost;
}

/** The service's CPU per page of `measured` (one build's rounds of one job; per page walked or written), their median, in µs. */
function medianServiceMicros(measured: readonly Measured[], pages: 'seen' | 'indexed'): string {
  const perPage = measured.map((m) => (m.cost.service * 1e6) / m.job[pages]).sort((a, b) => a - b);
  return percentile(perPage, 0.5).toFixed(0);
}

/** A round of one build: its no-change pass, then its rebuild, on a service of its own. */
function measure(build: Build): Promise<{ pass: Measured; rebuild: Measured }> {
  return withService(build, null, async (service) => {
    const passFrom = monotonicUs();
    const passed = await measureCost(service.process.pid!, async () => (await startJob(socketOf(service), { kind: 'pass' })).finished);
    const pass = { build, job: passed.result, cost: passed.cost };
    const rebuildFrom = monotonicUs();
    const rebuilt = await measureCost(service.process.pid!, () => reindexJob(service, '--rebuild', build.cli));
    const rebuild = { build, job: rebuilt.result.report, cost: rebuilt.cost };
    console.log(`${build.label}: windows (monotonic µs, for profile-summary.js): no-change pass ${passFrom}:${rebuildFrom}, rebuild ${rebuildFrom}:${monotonicUs()}`);
    console.log(`${build.label}: no-change pass over ${pass.job.seen} pages in ${(pass.job.durationMs / 1000).toFixed(1)} s, CPU per page ${cpuPer(pass.cost, pass.job.seen)}; rebuild of ${rebuild.job.indexed} pages in ${(rebuild.job.durationMs / 1000).toFixed(1)} s, CPU per page ${cpuPer(rebuild.cost, rebuild.job.indexed)}`);
    return { pass, rebuild };
  });
}

async function run(): Promise<BenchReport> {
  const { env, es, smb, admin } = await seedClients(SHARE);
  const load = loadAverage();
  removeSeed(env, SHARE, ROOT);
  try {
    await removeSeedDocuments(es, ROOT);
    const seed = await seedWiki({ env, admin, share: SHARE, root: ROOT, folders: PAGES / 10, pages: PAGES });
    console.log(`seeded ${seed.pages} pages in ${seed.folders} folders`);
    const baseline = baselineBuild('JOBBENCH_BASELINE');
    const builds = baseline === undefined ? [THIS_BUILD] : [baseline, THIS_BUILD];
    countSmbRequests(true);
    const rounds: { pass: Measured; rebuild: Measured }[] = [];
    for (let round = 0; round < ROUNDS; round++) for (const build of builds) rounds.push(await measure(build));
    const shortfalls = rounds.reduce((u, { pass, rebuild }) => u
      .with(jobShortfalls(`no-change pass (${pass.build.label})`, pass.job, { pages: seed.pages, count: 'seen' }))
      .with(jobShortfalls(`rebuild (${rebuild.build.label})`, rebuild.job, { pages: seed.pages, count: 'indexed' })), new Unexpected());
    const medians = (what: string, job: 'pass' | 'rebuild', pages: 'seen' | 'indexed') =>
      `${what} ${builds.map((build) => `${build.label} ${medianServiceMicros(rounds.map((r) => r[job]).filter((m) => m.build === build), pages)} µs`).join(', ')}`;
    const row = (what: string, m: Measured, pages: number) =>
      `| ${what} | ${m.build.label} | ${(m.job.durationMs / 1000).toFixed(1)} | ${cpuPer(m.cost, pages)} | ${threadsPer(m.cost, pages)} | ${requestsPer(m.cost, pages)} |`;
    const lines = [
      runLine(SCRIPT, load),
      `Seed: ${seed.pages} pages of 1–20 KiB Markdown in ${seed.folders} folders below \`${ROOT}/\` of \`${SHARE}\`, ${seed.aclKinds} ACL kinds (bench/index/seed.ts); the jobs cover both shares (the testbed's own pages too).`,
      `Each round and build: a service of its own (\`reconciler.watch: false\`, \`reconciler.pace: fast\`, no timed pass), its first pass, then a pass that finds nothing to do and \`fileproxy reindex --rebuild\`; ${ROUNDS} rounds${baseline === undefined ? '' : `, the builds alternated (${baseline.label} first)`}. CPU per page: read around each job (the service's process, smbd with its children, Elasticsearch), per page the pass walked or the rebuild wrote; SMB2 requests per page: Samba's profiling counters. Jobs that did not finish with every seeded page walked or written: ${shortfalls.toString()}.`,
      '',
      '| job | build | duration, s | CPU per page | the service\'s CPU per page by thread | SMB2 requests per page |',
      '|---|---|---:|---|---|---|',
      ...rounds.map(({ pass }) => row('no-change pass', pass, pass.job.seen)),
      ...rounds.map(({ rebuild }) => row('rebuild', rebuild, rebuild.job.indexed)),
      '',
      `The service's CPU per page, the median of the rounds: ${medians('no-change pass', 'pass', 'seen')}; ${medians('rebuild', 'rebuild', 'indexed')}.`,
      '',
    ];
    return report(HEADING, lines, []);
  } finally {
    countSmbRequests(false);
    removeSeed(env, SHARE, ROOT);
    await removeSeedDocuments(es, ROOT).catch(() => undefined);
    await smb.close();
    await es.close();
  }
}

export const jobCostBench: Benchmark = { name: 'job-cost', script: SCRIPT, run };

await runAlone(import.meta.url, jobCostBench);
