/**
 * The indexing pools on the testbed: docs/s of a full reindex for each size of the smb-reader pool
 * (`workers.smb_readers`) × the indexer pool (`workers.indexers`), each next to raw `_bulk` of the same documents and
 * with save → searchable, in the same run; the summary judges the default sizes:
 *   node dist/bench/index/pools.js          (POOLBENCH_PAGES / POOLBENCH_FOLDERS / POOLBENCH_SAVES size it)
 * Seeds the pages as run.ts does (seed.ts, on the DC's disk), starts one service per pair of sizes (change watch off,
 * no timed pass), lets its first pass index what is missing, then times `fileproxy reindex --all` ROUNDS times and
 * keeps the best. Removes the pages and their documents afterwards and writes its section of bench/RESULTS.md.
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { loadConfig } from '../../src/config/load.js';
import { startService, writeServiceConfig, type RunningService } from '../../test/support/service.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { loadAverage, ratioRow, runAlone, runLine, report, verdict, type BenchReport, type Benchmark } from '../results.js';
import { exportDocuments, RAW_INDEX, rawBulk, reindexAll } from './reindex.js';
import { saveToSearch } from './save-to-search.js';
import type { ChangeToSearch } from './until-found.js';
import { removeSeed, removeSeedDocuments, seedClients, seedWiki } from './seed.js';

const PAGES = Number(process.env['POOLBENCH_PAGES'] ?? 10_000);
const FOLDERS = Number(process.env['POOLBENCH_FOLDERS'] ?? 1_000);
const SAVES = Number(process.env['POOLBENCH_SAVES'] ?? 100);
const SHARE = 'schule';
const ROOT = 'zz-poolbench';
const HEADING = '## Indexing pools';
const READERS = [1, 2, 4];
const INDEXERS = [1, 2];
/** Reindexes per pair of sizes; the best counts (the machine is shared). */
const ROUNDS = 2;
/** Today's ratio (bench/RESULTS.md, "Index and reconciler", before the indexer pool came back) and the save target. */
const TARGET = { bulkRatio: 0.18, saveP99Ms: 1500 };

interface Cell {
  readers: number;
  indexers: number;
  /** Documents per second of each round. */
  rates: number[];
  best: JobInfo;
  /** Raw `_bulk` of the same documents right after the reindex: the host's load drifts, so each pair has its own peer. */
  rawRate: number;
  saves: ChangeToSearch;
}

const rateOf = (job: JobInfo) => job.indexed / (job.durationMs / 1000);

/** The pool sizes the service takes when config.yml names none. */
async function defaultSizes(): Promise<{ readers: number; indexers: number }> {
  const { file } = await writeServiceConfig({ workers: { smb_readers: undefined, indexers: undefined } });
  const { workers } = loadConfig(file).config;
  return { readers: workers.smb_readers, indexers: workers.indexers };
}

async function withService<T>(workers: { smb_readers: number; indexers: number }, work: (service: RunningService) => Promise<T>): Promise<T> {
  const started = Date.now();
  const service = await startService({ reconciler: { interval: '24h', watch: false }, workers });
  try {
    // The first pass indexes what the index lacks (all the seeded pages, the first time): it is not timed.
    await passAfter(service, started, 600_000);
    return await work(service);
  } finally {
    await service.stop();
  }
}

async function reindexRounds(service: RunningService): Promise<{ rates: number[]; best: JobInfo }> {
  const jobs: JobInfo[] = [];
  for (let round = 0; round < ROUNDS; round++) jobs.push((await reindexAll(service)).report);
  const best = jobs.reduce((a, b) => (rateOf(a) >= rateOf(b) ? a : b));
  return { rates: jobs.map(rateOf), best };
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
    for (const readers of READERS) {
      for (const indexers of INDEXERS) {
        await withService({ smb_readers: readers, indexers }, async (service) => {
          const { rates, best } = await reindexRounds(service);
          const exported = await exportDocuments(es, ROOT);
          documents = exported.documents;
          const rawRate = exported.documents / ((await rawBulk(es, exported.bodies)) / 1000);
          const saves = await saveToSearch(service, env, SAVES);
          cells.push({ readers, indexers, rates, best, rawRate, saves });
          console.log(`smb_readers ${readers} × indexers ${indexers}: ${rates.map((r) => r.toFixed(0)).join(', ')} docs/s, raw _bulk ${rawRate.toFixed(0)}; save → searchable p99 ${saves.p99.toFixed(0)} ms`);
        });
      }
    }
    const chosen = cells.find((c) => c.readers === defaults.readers && c.indexers === defaults.indexers);
    if (chosen === undefined) throw new Error(`the default sizes (${defaults.readers} × ${defaults.indexers}) are not in the table`);
    const ratioOf = (c: Cell) => rateOf(c.best) / c.rawRate;
    const fastest = cells.reduce((a, b) => (ratioOf(a) >= ratioOf(b) ? a : b));
    const bulkRatio = ratioOf(chosen);
    const saveMet = chosen.saves.lost === 0 && chosen.saves.p99 <= TARGET.saveP99Ms;
    const row = (c: Cell) => {
      const mark = c === chosen ? ' **(default)**' : '';
      return `| ${c.readers} | ${c.indexers}${mark} | ${rateOf(c.best).toFixed(0)} (${c.rates.map((x) => x.toFixed(0)).join(', ')}) | ${c.rawRate.toFixed(0)} | ${ratioOf(c).toFixed(2)} × | ${c.saves.p50.toFixed(0)} / ${c.saves.p99.toFixed(0)} ms, ${c.saves.lost} lost |`;
    };
    const lines = [
      runLine(SCRIPT, load),
      `Seed: ${seed.pages} pages of 1–20 KiB Markdown in ${seed.folders} folders below \`${ROOT}/\` of \`${SHARE}\`, ${seed.aclKinds} ACL kinds (bench/index/seed.ts); the reindex covers both shares (the testbed's own pages too).`,
      `Each pair of sizes: a service of its own (\`reconciler.watch: false\`, no timed pass), \`fileproxy reindex --all\` ${ROUNDS} times, the best rate (documents written / job duration; rounds in brackets), then ${SAVES} WebDAV saves timed until \`POST /wiki/search\` finds them (save-to-search.ts).`,
      `Raw \`_bulk\`: right after each pair's reindexes, the ${documents} seeded documents as that service indexed them, sent to a fresh index with the same mapping, 500 per request, 2 in flight (the load of the shared host drifts, so each pair is compared with its own peer).`,
      '',
      '| smb_readers | indexers | full reindex, docs/s | raw `_bulk`, docs/s | reindex ÷ raw `_bulk` | save → searchable p50 / p99 |',
      '|---:|---:|---:|---:|---:|---|',
      ...cells.map(row),
      '',
      `Fastest against its peer: smb_readers ${fastest.readers} × indexers ${fastest.indexers}. Defaults: smb_readers ${defaults.readers} × indexers ${defaults.indexers}: full reindex ${bulkRatio.toFixed(2)} × raw \`_bulk\` (target ≥ ${TARGET.bulkRatio} ×, ${verdict(bulkRatio >= TARGET.bulkRatio)}), save → searchable p99 ${chosen.saves.p99.toFixed(0)} ms (target ≤ ${TARGET.saveP99Ms} ms, ${verdict(saveMet)}).`,
      '',
    ];
    return report(HEADING, lines, [
      ratioRow(`full reindex with the default pools (${defaults.readers} smb-readers × ${defaults.indexers} indexers), docs/s`, rateOf(chosen.best), chosen.rawRate, 'raw `_bulk`', { atLeast: TARGET.bulkRatio }),
      { figure: 'WebDAV save → searchable with the default pools, p99 ms', service: chosen.saves.p99.toFixed(0), peer: '–', ratio: '–', target: `≤ ${TARGET.saveP99Ms} ms`, met: saveMet },
    ]);
  } finally {
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
