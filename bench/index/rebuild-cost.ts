/**
 * What a rebuild costs a page: `fileproxy reindex --rebuild` (every page of every share read, rendered and written
 * into a new versioned index) over seeded pages, with the CPU of the service, smbd and Elasticsearch and the SMB2
 * requests per page read around it; for this build and, with REBUILDBENCH_BASELINE=<checkout> (built there), an
 * earlier one, the two alternated round by round in the same run (the host's load drifts):
 *   node dist/bench/index/rebuild-cost.js     (REBUILDBENCH_PAGES, default 10,000; REBUILDBENCH_ROUNDS, default 2)
 * Seeds the pages as pools.ts does (seed.ts, on the DC's disk); each round starts a service per build (change watch
 * off, no timed pass, `reconciler.pace: fast`, so that the figures are the pipeline's and not the pacer's), lets its
 * first pass index what is missing, then rebuilds. Removes the pages and their documents afterwards and writes its
 * section of bench/RESULTS.md. No target: the section says what a rebuild costs, and what a change to it saved.
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { jobShortfalls } from '../job-outcome.js';
import { reindexJob } from './reindex.js';
import { baselineBuild, THIS_BUILD, withService, type Build } from './builds.js';
import { countSmbRequests, cpuPer, measureCost, requestsPer, threadsPer, type WorkCost } from './work-cost.js';
import { removeSeed, removeSeedDocuments, seedClients, seedWiki } from './seed.js';

const PAGES = Number(process.env['REBUILDBENCH_PAGES'] ?? 10_000);
const ROUNDS = Number(process.env['REBUILDBENCH_ROUNDS'] ?? 2);
const SHARE = 'schule';
const ROOT = 'zz-rebuildbench';
const HEADING = '## Rebuilding the index';
const SCRIPT = 'dist/bench/index/rebuild-cost.js';

interface Rebuild {
  build: Build;
  job: JobInfo;
  cost: WorkCost;
}

function measure(build: Build): Promise<Rebuild> {
  return withService(build, null, async (service) => {
    const { result: { report: job }, cost } = await measureCost(service.process.pid!, () => reindexJob(service, '--rebuild', build.cli));
    console.log(`${build.label}: rebuild of ${job.indexed} pages in ${(job.durationMs / 1000).toFixed(1)} s; CPU per page ${cpuPer(cost, job.indexed)}`);
    return { build, job, cost };
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
    const baseline = baselineBuild('REBUILDBENCH_BASELINE');
    const builds = baseline === undefined ? [THIS_BUILD] : [baseline, THIS_BUILD];
    countSmbRequests(true);
    const rebuilds: Rebuild[] = [];
    for (let round = 0; round < ROUNDS; round++) for (const build of builds) rebuilds.push(await measure(build));
    const shortfalls = rebuilds.reduce((u, r) => u.with(jobShortfalls(`rebuild (${r.build.label})`, r.job, { pages: seed.pages, count: 'indexed' })), new Unexpected());
    const row = (r: Rebuild) =>
      `| ${r.build.label} | ${(r.job.durationMs / 1000).toFixed(1)} | ${cpuPer(r.cost, r.job.indexed)} | ${threadsPer(r.cost, r.job.indexed)} | ${requestsPer(r.cost, r.job.indexed)} |`;
    const lines = [
      runLine(SCRIPT, load),
      `Seed: ${seed.pages} pages of 1–20 KiB Markdown in ${seed.folders} folders below \`${ROOT}/\` of \`${SHARE}\`, ${seed.aclKinds} ACL kinds (bench/index/seed.ts); the rebuild covers both shares (the testbed's own pages too).`,
      `Each round and build: a service of its own (\`reconciler.watch: false\`, \`reconciler.pace: fast\`, no timed pass), its first pass, then \`fileproxy reindex --rebuild\`; ${ROUNDS} rounds${baseline === undefined ? '' : `, the builds alternated (${baseline.label} first)`}. CPU per page: read around the rebuild (the service's process, smbd with its children, Elasticsearch); SMB2 requests per page: Samba's profiling counters. Jobs that did not finish with every seeded page written: ${shortfalls.toString()}.`,
      '',
      '| build | rebuild, s | CPU per page | the service\'s CPU per page by thread | SMB2 requests per page |',
      '|---|---:|---|---|---|',
      ...rebuilds.map(row),
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

export const rebuildCostBench: Benchmark = { name: 'rebuild-cost', script: SCRIPT, run };

await runAlone(import.meta.url, rebuildCostBench);
