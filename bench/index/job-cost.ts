/**
 * What the indexing jobs cost a page: a no-change pass (every page's listing entry and security descriptor read,
 * nothing to write) and `fileproxy reindex --rebuild` (every page of every share read, rendered and written into a
 * new versioned index), over seeded pages, with the CPU of the service, smbd and Elasticsearch and the SMB2 requests
 * per page around each and the service's peak RSS during each; for this build and, with JOBBENCH_BASELINE=<checkout>
 * (built there), an earlier one, the two alternated job by job in the same run, the first of each pair swapped each
 * round (the host's speed drifts, on a shared virtual machine by a quarter within minutes):
 *   node dist/bench/index/job-cost.js     (JOBBENCH_PAGES, default 10,000; JOBBENCH_ROUNDS, default 3)
 * Seeds the pages as pools.ts does (seed.ts, on the DC's disk); starts a service per build (change watch off, no
 * timed pass, `reconciler.pace: fast`, so that the figures are the pipeline's and not the pacer's), one after the
 * other, each once its first pass has indexed what is missing; then runs the rounds of a pass (which finds nothing to
 * do) on each service in turn, then the rounds of a rebuild, while the other service idles. Removes the pages
 * and their documents afterwards and writes its section of bench/RESULTS.md. No target: the section says what the
 * jobs cost, and what a change to them saved. Each job's window is printed for profile-summary.ts (with
 * SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=...', where the service's threads spent that job's time).
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { startJob } from '../../src/control-socket/client.js';
import { socketOf } from '../../test/integration/reconcile/support.js';
import type { RunningService } from '../../test/support/service.js';
import { monotonicUs } from '../profile-summary.js';
import { mebibytes, percentile, rssSampler } from '../stats.js';
import { loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { jobShortfalls } from '../job-outcome.js';
import { reindexJob } from './reindex.js';
import { baselineBuild, THIS_BUILD, withService, type Build } from './builds.js';
import { countSmbRequests, cpuPer, measureCost, requestsPer, threadsPer, wakesPer, type WorkCost } from './work-cost.js';
import { removeSeed, removeSeedDocuments, seedClients, seedWiki } from './seed.js';

const PAGES = Number(process.env['JOBBENCH_PAGES'] ?? 10_000);
const ROUNDS = Number(process.env['JOBBENCH_ROUNDS'] ?? 3);
const SHARE = 'schule';
const ROOT = 'zz-jobbench';
const HEADING = '## What a pass and a rebuild cost a page';
const SCRIPT = 'dist/bench/index/job-cost.js';
/** How often the service's RSS is read during a job: a rebuild of 10,000 pages takes about 6 s. */
const RSS_SAMPLE_MS = 100;

/** One job of one build, measured. */
interface Measured {
  build: Build;
  job: JobInfo;
  cost: WorkCost;
  /** The service's peak RSS during the job, in bytes (sampled every RSS_SAMPLE_MS). */
  peakRss: number;
}

/** The service's CPU per page of one job of `measured` (per page walked or written), in µs. */
function serviceMicros(measured: Measured, pages: 'seen' | 'indexed'): number {
  return (measured.cost.service * 1e6) / measured.job[pages];
}

/** The service's CPU per page of `measured` (one build's rounds of one job), their median, in µs. */
function medianServiceMicros(measured: readonly Measured[], pages: 'seen' | 'indexed'): string {
  return percentile(measured.map((m) => serviceMicros(m, pages)).sort((a, b) => a - b), 0.5).toFixed(0);
}

/**
 * `this build lower in 5 of 6 rounds`: with the host's speed drifting, a round's two jobs (one after the other) compare
 * better than the medians of all rounds do.
 */
function lowerInRounds(measured: readonly Measured[], builds: readonly Build[], pages: 'seen' | 'indexed'): string {
  const [before, after] = builds.map((build) => measured.filter((m) => m.build === build));
  const lower = after!.filter((m, round) => serviceMicros(m, pages) < serviceMicros(before![round]!, pages)).length;
  return `${builds[1]!.label} lower in ${lower} of ${after!.length} rounds`;
}

/** `work` with a service of each of `builds` running (started one after the other: withService), in that order. */
function withServices<T>(builds: readonly Build[], work: (services: RunningService[]) => Promise<T>, started: RunningService[] = []): Promise<T> {
  if (started.length === builds.length) return work(started);
  return withService(builds[started.length]!, null, (service) => withServices(builds, work, [...started, service]));
}

/** One job of `build` on its `service`, measured; its window is printed for profile-summary.js. */
async function measureJob(build: Build, service: RunningService, kind: 'pass' | 'rebuild'): Promise<Measured> {
  const from = monotonicUs();
  const rss = rssSampler(service.process.pid!, RSS_SAMPLE_MS);
  const measured = kind === 'pass'
    ? await measureCost(service.process.pid!, async () => (await startJob(socketOf(service), { kind: 'pass' })).finished)
    : await measureCost(service.process.pid!, async () => (await reindexJob(service, '--rebuild', build.cli)).report);
  const peakRss = rss.stop();
  const job = measured.result;
  const pages = kind === 'pass' ? job.seen : job.indexed;
  console.log(`${build.label}: ${kind === 'pass' ? 'no-change pass over' : 'rebuild of'} ${pages} pages in ${(job.durationMs / 1000).toFixed(1)} s, CPU per page ${cpuPer(measured.cost, pages)}, peak RSS ${mebibytes(peakRss, 0)} MiB; window (monotonic µs, for profile-summary.js) ${from}:${monotonicUs()}`);
  return { build, job, cost: measured.cost, peakRss };
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
    const { passes, rebuilds } = await withServices(builds, async (services) => {
      const rounds = async (kind: 'pass' | 'rebuild') => {
        const measured: Measured[] = [];
        // Each round swaps which build goes first (A B, B A, ...): a job runs on what the one before left behind
        // (Elasticsearch merging, the page cache), and which build comes second must not decide a comparison.
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse();
          for (const i of order) measured.push(await measureJob(builds[i]!, services[i]!, kind));
        }
        return measured;
      };
      return { passes: await rounds('pass'), rebuilds: await rounds('rebuild') };
    });
    const shortfalls = [
      ...passes.map((pass) => jobShortfalls(`no-change pass (${pass.build.label})`, pass.job, { pages: seed.pages, count: 'seen' })),
      ...rebuilds.map((rebuild) => jobShortfalls(`rebuild (${rebuild.build.label})`, rebuild.job, { pages: seed.pages, count: 'indexed' })),
    ].reduce((u, each) => u.with(each), new Unexpected());
    const medians = (what: string, measured: readonly Measured[], pages: 'seen' | 'indexed') =>
      `${what} ${builds.map((build) => `${build.label} ${medianServiceMicros(measured.filter((m) => m.build === build), pages)} µs`).join(', ')}${builds.length === 2 ? ` (${lowerInRounds(measured, builds, pages)})` : ''}`;
    const row = (what: string, m: Measured, pages: number) =>
      `| ${what} | ${m.build.label} | ${(m.job.durationMs / 1000).toFixed(1)} | ${cpuPer(m.cost, pages)} | ${mebibytes(m.peakRss, 0)} | ${threadsPer(m.cost, pages)} | ${wakesPer(m.cost, pages)} | ${requestsPer(m.cost, pages)} |`;
    const lines = [
      runLine(SCRIPT, load),
      `Seed: ${seed.pages} pages of 1–20 KiB Markdown in ${seed.folders} folders below \`${ROOT}/\` of \`${SHARE}\`, ${seed.aclKinds} ACL kinds (bench/index/seed.ts); the jobs cover both shares (the testbed's own pages too).`,
      `A service per build (\`reconciler.watch: false\`, \`reconciler.pace: fast\`, no timed pass), started one after the other, each once its first pass was done; then ${ROUNDS} rounds of a pass that finds nothing to do, then ${ROUNDS} of \`fileproxy reindex --rebuild\`${baseline === undefined ? '' : `, the builds alternated job by job (${baseline.label} first in the odd rounds, this build in the even ones), the other service idle meanwhile`}. CPU per page: read around each job (the service's process, smbd with its children, Elasticsearch), per page the pass walked or the rebuild wrote; the service's read/write syscalls (/proc/<pid>/io) and its threads' sleeps (voluntary context switches) likewise; SMB2 requests per page: Samba's profiling counters; peak RSS: the service's, read every ${RSS_SAMPLE_MS} ms during each job. Jobs that did not finish with every seeded page walked or written: ${shortfalls.toString()}.`,
      '',
      '| job | build | duration, s | CPU per page | the service\'s peak RSS, MiB | the service\'s CPU per page by thread | the service\'s syscalls and sleeps per page | SMB2 requests per page |',
      '|---|---|---:|---|---:|---|---|---|',
      ...passes.map((pass) => row('no-change pass', pass, pass.job.seen)),
      ...rebuilds.map((rebuild) => row('rebuild', rebuild, rebuild.job.indexed)),
      '',
      `The service's CPU per page, the median of the rounds: ${medians('no-change pass', passes, 'seen')}; ${medians('rebuild', rebuilds, 'indexed')}. The service's peak RSS in any job: ${builds.map((build) => `${build.label} ${mebibytes(Math.max(...[...passes, ...rebuilds].filter((m) => m.build === build).map((m) => m.peakRss)), 0)} MiB`).join(', ')}.`,
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
