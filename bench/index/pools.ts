/**
 * The indexing pools on the testbed: docs/s of a full reindex for each size of the smb-reader pool
 * (`workers.smb_readers`) × the indexer pool (`workers.indexers`), each next to raw `_bulk` of the same documents and
 * with save → searchable, in the same run; the summary judges the default sizes:
 *   node dist/bench/index/pools.js          (POOLBENCH_PAGES / POOLBENCH_FOLDERS / POOLBENCH_SAVES size it)
 * POOLBENCH_SIZES=2x2,1x1 measures only those pairs; POOLBENCH_BASELINE=<checkout> adds an earlier build, checked out
 * and built there, with its own default sizes, measured the same way in the same run (the host's load drifts, so
 * builds are only compared within one run). Each reindex's CPU (service, smbd, Elasticsearch) and SMB requests per
 * page are read around it, to say where its time goes.
 * Seeds the pages as run.ts does (seed.ts, on the DC's disk), starts one service per pair of sizes (change watch off,
 * no timed pass), lets its first pass index what is missing, then times `fileproxy reindex --all` ROUNDS times and
 * keeps the best. Removes the pages and their documents afterwards and writes its section of bench/RESULTS.md.
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { loadConfig } from '../../src/config/load.js';
import { writeServiceConfig, type RunningService } from '../../test/support/service.js';
import { loadAverage, ratioRow, runAlone, runLine, report, Unexpected, verdict, type BenchReport, type Benchmark } from '../results.js';
import { jobShortfalls } from '../job-outcome.js';
import { exportDocuments, RAW_INDEX, rawBulk, reindexAll } from './reindex.js';
import { countSmbRequests, cpuCeiling, cpuPer, measureCost, requestsPer, threadsPer, type WorkCost } from './work-cost.js';
import { saveToSearch } from './save-to-search.js';
import type { ChangeToSearch } from './until-found.js';
import { removeSeed, removeSeedDocuments, seedClients, seedWiki } from './seed.js';
import { baselineBuild, THIS_BUILD, withService, type Build } from './builds.js';

const PAGES = Number(process.env['POOLBENCH_PAGES'] ?? 10_000);
const FOLDERS = Number(process.env['POOLBENCH_FOLDERS'] ?? 1_000);
const SAVES = Number(process.env['POOLBENCH_SAVES'] ?? 100);
const SHARE = 'schule';
const ROOT = 'zz-poolbench';
const HEADING = '## Indexing pools';
/** The pairs of sizes: POOLBENCH_SIZES (`2x2,1x1`), or every smb_readers of [1, 2, 4] with every indexers of [1, 2]. */
const SIZES: { readers: number; indexers: number }[] = process.env['POOLBENCH_SIZES']
  ? process.env['POOLBENCH_SIZES'].split(',').map((pair) => {
    const [readers, indexers] = pair.split('x').map(Number);
    if (!Number.isInteger(readers) || !Number.isInteger(indexers)) throw new Error(`POOLBENCH_SIZES: '${pair}' is not <readers>x<indexers>`);
    return { readers: readers!, indexers: indexers! };
  })
  : [1, 2, 4].flatMap((readers) => [1, 2].map((indexers) => ({ readers, indexers })));

/** Reindexes per pair of sizes; the best counts (the machine is shared). */
const ROUNDS = 2;
/** Today's ratio (bench/RESULTS.md, "Index and reconciler", before the indexer pool came back) and the save target. */
const TARGET = { bulkRatio: 0.18, saveP99Ms: 1500 };

interface Cell {
  build: Build;
  /** null: the build's own defaults (the earlier build is measured with those only). */
  readers: number | null;
  indexers: number | null;
  /** Documents per second of each round. */
  rates: number[];
  best: JobInfo;
  /** What the rounds' reindexes left undone (job-outcome.ts): any of it and the rate is not of the whole work. */
  shortfalls: Unexpected;
  /** What the best round cost. */
  cost: WorkCost;
  /** Raw `_bulk` of the same documents right after the reindex: the host's load drifts, so each pair has its own peer. */
  rawRate: number;
  saves: ChangeToSearch;
}

const rateOf = (job: JobInfo) => job.indexed / (job.durationMs / 1000);
const sizesOf = (c: Cell) => (c.readers === null ? `${c.build.label}, its default sizes` : `smb_readers ${c.readers} × indexers ${c.indexers}`);

/** The pool sizes the service takes when config.yml names none. */
async function defaultSizes(): Promise<{ readers: number; indexers: number }> {
  const { file } = await writeServiceConfig({ workers: { smb_readers: undefined, indexers: undefined } });
  const { workers } = loadConfig(file).config;
  return { readers: workers.smb_readers, indexers: workers.indexers };
}

/** `pages`: the seeded pages, which each reindex must write. */
async function reindexRounds(build: Build, service: RunningService, pages: number): Promise<{ rates: number[]; best: JobInfo; shortfalls: Unexpected; cost: WorkCost }> {
  const rounds: { job: JobInfo; cost: WorkCost }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { result, cost } = await measureCost(service.process.pid!, () => reindexAll(service, build.cli));
    rounds.push({ job: result.report, cost });
  }
  const best = rounds.reduce((a, b) => (rateOf(a.job) >= rateOf(b.job) ? a : b));
  const shortfalls = rounds.reduce((u, r) => u.with(jobShortfalls('reindex', r.job, { pages, count: 'indexed' })), new Unexpected());
  return { rates: rounds.map((r) => rateOf(r.job)), best: best.job, shortfalls, cost: best.cost };
}

async function run(): Promise<BenchReport> {
  const { env, es, smb, admin } = await seedClients(SHARE);
  const load = loadAverage();
  const defaults = await defaultSizes();
  removeSeed(env, SHARE, ROOT);
  try {
    await removeSeedDocuments(es, ROOT);
    const seed = await seedWiki({ env, admin, share: SHARE, root: ROOT, folders: FOLDERS, pages: PAGES });
    console.log(`seeded ${seed.pages} pages in ${seed.folders} folders`);
    const cells: Cell[] = [];
    let documents = 0;
    const measure = (build: Build, sizes: { readers: number; indexers: number } | null) =>
      withService(build, sizes && { smb_readers: sizes.readers, indexers: sizes.indexers }, async (service) => {
        const { rates, best, shortfalls, cost } = await reindexRounds(build, service, seed.pages);
        const exported = await exportDocuments(es, ROOT);
        documents = exported.documents;
        const rawRate = exported.documents / ((await rawBulk(es, exported.bodies)) / 1000);
        const saves = await saveToSearch(service, env, SAVES);
        const cell: Cell = { build, readers: sizes?.readers ?? null, indexers: sizes?.indexers ?? null, rates, best, shortfalls, cost, rawRate, saves };
        cells.push(cell);
        console.log(`${sizesOf(cell)}: ${rates.map((r) => r.toFixed(0)).join(', ')} docs/s, raw _bulk ${rawRate.toFixed(0)}; CPU per page ${cpuPer(cost, best.indexed)} (service's threads: ${threadsPer(cost, best.indexed)}); save → searchable p99 ${saves.p99.toFixed(0)} ms`);
      });
    countSmbRequests(true);
    const baseline = baselineBuild('POOLBENCH_BASELINE');
    // The earlier build first and last, so that a drift of the host's load shows as a difference between its two.
    if (baseline !== undefined) await measure(baseline, null);
    for (const sizes of SIZES) await measure(THIS_BUILD, sizes);
    if (baseline !== undefined) await measure(baseline, null);
    const chosen = cells.find((c) => c.build === THIS_BUILD && c.readers === defaults.readers && c.indexers === defaults.indexers);
    if (chosen === undefined) throw new Error(`the default sizes (${defaults.readers} × ${defaults.indexers}) are not in the table`);
    const ratioOf = (c: Cell) => rateOf(c.best) / c.rawRate;
    const fastest = cells.filter((c) => c.build === THIS_BUILD).reduce((a, b) => (ratioOf(a) >= ratioOf(b) ? a : b));
    const bulkRatio = ratioOf(chosen);
    const saveMet = chosen.saves.lost === 0 && chosen.saves.p99 <= TARGET.saveP99Ms;
    const earlier = cells.filter((c) => c.build !== THIS_BUILD);
    const row = (c: Cell) => {
      const mark = c === chosen ? ' **(default)**' : '';
      const sizes = c.readers === null ? `${c.build.label}: its defaults | ` : `${c.readers} | ${c.indexers}${mark}`;
      const ceiling = cpuCeiling(c.cost, c.best.indexed);
      return `| ${sizes} | ${rateOf(c.best).toFixed(0)} (${c.rates.map((x) => x.toFixed(0)).join(', ')}) | ${c.rawRate.toFixed(0)} | ${ratioOf(c).toFixed(2)} × | ${cpuPer(c.cost, c.best.indexed)}; ceiling ${ceiling.serversOnly.toFixed(0)} / ${ceiling.withService.toFixed(0)} | ${requestsPer(c.cost, c.best.indexed)} | ${c.saves.p50.toFixed(0)} / ${c.saves.p99.toFixed(0)} ms, ${c.saves.lost} lost |`;
    };
    const serviceUs = (c: Cell) => (c.cost.service * 1e6) / c.best.indexed;
    // Where both builds send the same SMB requests per page, smbd's CPU per page moves only with the host's speed, so
    // the service's CPU per µs of smbd's compares builds across the drift of a shared host; where they do not, it
    // says nothing.
    const perSmbdUs = (c: Cell) => c.cost.service / c.cost.samba;
    const sameRequests = earlier.every((c) => requestsPer(c.cost, c.best.indexed) === requestsPer(chosen.cost, chosen.best.indexed));
    const smbdYardstick = sameRequests
      ? `; per µs of smbd's CPU (the same requests per page for both builds, so it moves only with the host's speed) ${perSmbdUs(chosen).toFixed(2)} against ${earlier.map((c) => perSmbdUs(c).toFixed(2)).join(' and ')}`
      : ' (the builds send different SMB2 requests per page, see the table, so smbd\'s CPU is no yardstick of the host\'s speed here)';
    const againstEarlier = earlier.length === 0 ? [] : [
      `Against the earlier build in the same run (${earlier[0]!.build.label}, measured first and last): reindex ÷ raw \`_bulk\` ${bulkRatio.toFixed(2)} × against ${earlier.map((c) => `${ratioOf(c).toFixed(2)} ×`).join(' and ')}; docs/s ${rateOf(chosen.best).toFixed(0)} against ${earlier.map((c) => rateOf(c.best).toFixed(0)).join(' and ')}; save → searchable p99 ${chosen.saves.p99.toFixed(0)} ms against ${earlier.map((c) => `${c.saves.p99.toFixed(0)} ms`).join(' and ')}.`,
      `Service CPU per page ${serviceUs(chosen).toFixed(0)} µs against ${earlier.map((c) => `${serviceUs(c).toFixed(0)} µs`).join(' and ')}${smbdYardstick}.`,
      '',
    ];
    const lines = [
      runLine(SCRIPT, load),
      `Seed: ${seed.pages} pages of 1–20 KiB Markdown in ${seed.folders} folders below \`${ROOT}/\` of \`${SHARE}\`, ${seed.aclKinds} ACL kinds (bench/index/seed.ts); the reindex covers both shares (the testbed's own pages too).`,
      `Each pair of sizes: a service of its own (\`reconciler.watch: false\`, \`reconciler.pace: fast\`, no timed pass), \`fileproxy reindex --all\` ${ROUNDS} times, the best rate (documents written / job duration; rounds in brackets), then ${SAVES} WebDAV saves timed until \`POST /wiki/search\` finds them (save-to-search.ts).`,
      `Raw \`_bulk\`: right after each pair's reindexes, the ${documents} seeded documents as that service indexed them, sent to a fresh index with the same mapping, 500 per request, 2 in flight (the load of the shared host drifts, so each pair is compared with its own peer).`,
      '',
      `CPU per page: of the best round, read around it (the service's process, smbd with its children, Elasticsearch); the ceiling is the pages/s the ${cpuCeiling(chosen.cost, 1).cores} cores allow at those costs with the servers alone / with the service too. SMB2 requests per page: Samba's profiling counters.`,
      '',
      '| smb_readers | indexers | full reindex, docs/s | raw `_bulk`, docs/s | reindex ÷ raw `_bulk` | CPU per page; ceiling pages/s | SMB2 requests per page | save → searchable p50 / p99 |',
      '|---:|---:|---:|---:|---:|---|---|---|',
      ...cells.map(row),
      '',
      'The service\'s CPU per page of the best round by thread (/proc/<pid>/task/<tid>/comm: `WorkerThread` are the pools\' threads, `V8Worker` V8\'s collector and compiler helpers):',
      ...cells.map((c) => `- ${sizesOf(c)}: ${threadsPer(c.cost, c.best.indexed)}`),
      '',
      ...againstEarlier,
      `Fastest against its peer: smb_readers ${fastest.readers} × indexers ${fastest.indexers}. Defaults: smb_readers ${defaults.readers} × indexers ${defaults.indexers}: full reindex ${bulkRatio.toFixed(2)} × raw \`_bulk\` (target ≥ ${TARGET.bulkRatio} ×, ${verdict(bulkRatio >= TARGET.bulkRatio)}), save → searchable p99 ${chosen.saves.p99.toFixed(0)} ms (target ≤ ${TARGET.saveP99Ms} ms, ${verdict(saveMet)}).`,
      '',
    ];
    return report(HEADING, lines, [
      ratioRow(`full reindex with the default pools (${defaults.readers} smb-readers × ${defaults.indexers} indexers), docs/s`, rateOf(chosen.best), chosen.rawRate, 'raw `_bulk`', { atLeast: TARGET.bulkRatio }, 0, chosen.shortfalls),
      { figure: 'WebDAV save → searchable with the default pools, p99 ms', service: chosen.saves.p99.toFixed(0), peer: '–', ratio: '–', target: `≤ ${TARGET.saveP99Ms} ms`, met: saveMet },
    ]);
  } finally {
    countSmbRequests(false);
    removeSeed(env, SHARE, ROOT);
    await removeSeedDocuments(es, ROOT).catch(() => undefined);
    await es.indices.delete({ index: RAW_INDEX, ignore_unavailable: true }).catch(() => undefined);
    await smb.close();
    await es.close();
  }
}

const SCRIPT = 'dist/bench/index/pools.js';
export const poolsBench: Benchmark = { name: 'index-pools', script: SCRIPT, run };

await runAlone(import.meta.url, poolsBench);
