/**
 * The change watch against what users do to folders, on a share of 50,000 pages in 5,000 folders (seed.ts, on the
 * DC's disk, indexed by one pass):
 *   node dist/bench/index/folder-deletes.js     (INDEXBENCH_PAGES / INDEXBENCH_FOLDERS shrink it for trials)
 * - handles the watch holds per share (/healthz), next to the `.wiki/` folders the share has;
 * - 200 class folders with wiki pages deleted over SMB as a teacher, half with `smbclient deltree`, half in Explorer's
 *   order (test/integration/wiki/recursive-deletes.ts): first tries that succeed, and the time until the pages are
 *   gone from search;
 * - what deleting one 100-page folder costs: documents written to the index and pages read by passes (the service's
 *   own counts), and SMB2 requests (Samba's profiling counters, smbclient's deltree included), next to a pass of the
 *   share (50,000 pages);
 * - WebDAV save → searchable while seeded class folders (10 pages each) are deleted over SMB alongside;
 * - SMB edit → searchable (smb-write-to-search.ts) with the watch as it is now.
 * Writes its section of bench/RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { startJob } from '../../src/control-socket/client.js';
import { jobShortfalls } from '../job-outcome.js';
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { SmbClient } from '../../src/smb/index.js';
import { startService, waitFor, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { passAfter, reconcilerDetails } from '../../test/integration/wiki/wiki-service.js';
import { recursiveDeletes, smbclient, windows } from '../../test/integration/wiki/recursive-deletes.js';
import { shareAs, socketOf, writeFiles } from '../../test/integration/reconcile/support.js';
import { loadAverage, runAlone, runLine, verdict, report, type BenchReport, type Benchmark } from '../results.js';
import { percentile } from '../stats.js';
import { saveToSearch } from './save-to-search.js';
import { smbWriteToSearch } from './smb-write-to-search.js';
import { removeSeed, removeSeedDocuments, seedWiki } from './seed.js';
import { countSmbRequests, measureCost, requestsPer } from './work-cost.js';

const PAGES = Number(process.env['INDEXBENCH_PAGES'] ?? 50_000);
const FOLDERS = Number(process.env['INDEXBENCH_FOLDERS'] ?? 5_000);
const SHARE = 'schule';
const ROOT = 'zz-folderbench';
const HEADING = '## Change watch and folder deletes';
const TREES = 200;
/** The folder whose delete is costed: this many pages in FOLDER_WIKIS `.wiki/` folders. */
const FOLDER_PAGES = 100;
const FOLDER_WIKIS = 10;
const SAVES = 200;
const SMB_WRITES = 500;
const TARGET = { handles: 1, goneMs: 2000, documentsPerPage: 1.5, saveP99Ms: 1500, smbWriteP99Ms: 2000 };

interface Details {
  running: JobInfo | null;
  queued: unknown[];
  lastJob: JobInfo | null;
  lastPass: { startedAt: string } | null;
  hook: { queued: number; running: number; applied: number };
  bulk: { upserted: number; deleted: number };
  watch: Record<string, { handles: number; folderPasses: number }>;
}

const details = async (service: RunningService) => (await reconcilerDetails(service)) as unknown as Details;

/** No job running or queued and the hook's queue empty, for a second on end. */
async function settled(service: RunningService): Promise<void> {
  let since = performance.now();
  await waitFor(async () => {
    const d = await details(service);
    if (d.running !== null || d.queued.length > 0 || d.hook.queued + d.hook.running > 0) since = performance.now();
    return performance.now() - since >= 1000;
  }, 300_000);
}

async function indexedBelow(es: ReturnType<typeof createSearchClient>, dir: string): Promise<number> {
  await es.indices.refresh({ index: DEFAULT_ALIAS });
  return (await es.count({ index: DEFAULT_ALIAS, query: { prefix: { path: `${dir}/` } } })).count;
}

/** Jobs that ended between two readings of /healthz: what the later one says of the last (the watch's passes are few). */
function passesBetween(before: Details, after: Details): { jobs: number; seen: number; indexed: number; removed: number } {
  const last = after.lastJob;
  if (last === null || last.id === before.lastJob?.id) return { jobs: 0, seen: 0, indexed: 0, removed: 0 };
  return { jobs: last.id - (before.lastJob?.id ?? 0), seen: last.seen, indexed: last.indexed, removed: last.removed };
}

async function run(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const es = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 300_000 });
  const smb = new SmbClient();
  const admin = shareAs(smb, env, env.dc_admin, SHARE);
  const anna = shareAs(smb, env, { user: 'anna', password: env.users['anna']!.password }, SHARE);
  const load = loadAverage();
  const scratch = `zz-folderdel-${randomBytes(4).toString('hex')}`;
  removeSeed(env, SHARE, ROOT);
  countSmbRequests(true);
  const started = Date.now();
  const service = await startService({ reconciler: { interval: '24h' } });
  try {
    await passAfter(service, started);
    const seed = await seedWiki({ env, admin, share: SHARE, root: ROOT, folders: FOLDERS, pages: PAGES });
    // Written on the disk, behind the watch's back: one pass indexes them.
    const seeding = await (await startJob(socketOf(service), { kind: 'pass' })).finished;
    // Every figure below stands on this pass: one that did not walk every seeded page measures another share.
    const seedingShortfalls = jobShortfalls('seeding pass', seeding, { pages: seed.pages, count: 'seen' });
    if (seedingShortfalls.total > 0) throw new Error(`the pass over the seeded pages did not do all its work: ${seedingShortfalls}`);
    await settled(service);
    const sharePages = seeding.seen;
    const handles = Object.values((await details(service)).watch).map((w) => w.handles);
    console.log(`seeded and indexed ${seed.pages} pages in ${seed.folders} folders (the share: ${sharePages} pages); watch handles per share: ${handles.join(', ')}`);

    // One 100-page folder, written over SMB (the watch indexes it), then deleted with deltree.
    const folder = `${scratch}/Ordner`;
    await writeFiles(anna, Array.from({ length: FOLDER_PAGES }, (_, i): [string, string] => [`${folder}/Fach-${i % FOLDER_WIKIS}/.wiki/seite-${i}.md`, `# Seite ${i}\n\nOrdnerseite ${i}.\n`]));
    await waitFor(async () => (await indexedBelow(es, folder)) === FOLDER_PAGES, 60_000);
    await settled(service);
    const before = await details(service);
    const { result: goneAfterMs, cost } = await measureCost(service.process.pid!, async () => {
      const said = await smbclient(env, env.dc_admin, [`deltree ${windows(folder)}`]);
      if (said !== '') throw new Error(`deltree ${folder}: ${said}`);
      const deleted = performance.now();
      await waitFor(async () => (await indexedBelow(es, folder)) === 0, 60_000);
      const gone = performance.now() - deleted;
      await settled(service);
      return gone;
    });
    const after = await details(service);
    const passes = passesBetween(before, after);
    const written = after.bulk.upserted - before.bulk.upserted + after.bulk.deleted - before.bulk.deleted + passes.indexed + passes.removed;
    const touched = written + passes.seen;
    console.log(`100-page folder deleted: gone from the index after ${goneAfterMs.toFixed(0)} ms; documents written ${written}, passes ${passes.jobs} (pages seen ${passes.seen}); SMB2 ${requestsPer(cost, 1)}`);

    const deletes = await recursiveDeletes(service.url, env, anna, scratch, TREES);
    const gone = { p50: percentile(deletes.goneMs, 0.5), p99: percentile(deletes.goneMs, 0.99), max: deletes.goneMs.at(-1)! };
    console.log(`recursive deletes: ${TREES - deletes.failed.length} of ${TREES} at the first try; gone from search p50 ${gone.p50.toFixed(0)} ms, p99 ${gone.p99.toFixed(0)} ms`);

    // Saves while seeded class folders of 10 pages go, one every half second.
    let deletedAlongside = 0;
    let saving = true;
    const deleting = (async () => {
      for (let f = 0; saving && f < seed.folders; f++) {
        const klasse = `${ROOT}/Schule-${String(Math.floor(f / 100)).padStart(2, '0')}/Klasse-${String(f).padStart(4, '0')}`;
        const said = await smbclient(env, env.dc_admin, [`deltree ${windows(klasse)}`]);
        if (said !== '') throw new Error(`deltree ${klasse}: ${said}`);
        deletedAlongside++;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    const saves = await saveToSearch(service, env, SAVES).finally(() => (saving = false));
    await deleting;
    console.log(`save → searchable while ${deletedAlongside} class folders were deleted: p50 ${saves.p50.toFixed(0)} ms, p99 ${saves.p99.toFixed(0)} ms, ${saves.lost} lost`);
    await settled(service);

    const smbWrites = await smbWriteToSearch(service, env, { teacher: anna, es, writes: SMB_WRITES, burstPages: 0 });
    console.log(`SMB edit → searchable: p50 ${smbWrites.p50.toFixed(0)} ms, p99 ${smbWrites.p99.toFixed(0)} ms, ${smbWrites.lost} lost`);

    const handlesMet = handles.every((n) => n <= TARGET.handles);
    const deletesMet = deletes.failed.length === 0 && gone.p99 <= TARGET.goneMs;
    const costMet = touched <= TARGET.documentsPerPage * FOLDER_PAGES;
    const saveMet = saves.lost === 0 && saves.p99 <= TARGET.saveP99Ms;
    const smbWriteMet = smbWrites.lost === 0 && smbWrites.p99 <= TARGET.smbWriteP99Ms;
    const rows = [
      `| handles the change watch holds, per share | ${handles.join(', ')} (with ${seed.folders} seeded \`.wiki/\` folders indexed) | | one per \`.wiki/\` folder before (5,007 on this share) | ≤ ${TARGET.handles} | ${verdict(handlesMet)} |`,
      `| recursive deletes over SMB while the service runs | ${TREES - deletes.failed.length} of ${TREES} at the first try (half \`deltree\`, half Explorer's order; 3 \`.wiki/\` folders each); pages gone from search p50 ${gone.p50.toFixed(0)} ms, p99 ${gone.p99.toFixed(0)} ms, max ${gone.max.toFixed(0)} ms | | | ${TREES} of ${TREES}; gone p99 ≤ ${TARGET.goneMs} ms | ${verdict(deletesMet)} |`,
      `| one ${FOLDER_PAGES}-page folder deleted (\`deltree\`) | ${written} documents written, ${passes.jobs} passes (${passes.seen} pages seen by them); gone from the index after ${goneAfterMs.toFixed(0)} ms; SMB2 requests (deltree included): ${requestsPer(cost, 1)} | | a pass of the share: ${sharePages} pages (${(touched / sharePages).toFixed(4)} ×) | ≤ ${TARGET.documentsPerPage * FOLDER_PAGES} documents | ${verdict(costMet)} |`,
      `| WebDAV save → found while folders are deleted alongside | ${saves.changes} saves, p50 ${saves.p50.toFixed(0)} ms, p99 ${saves.p99.toFixed(0)} ms, max ${saves.max.toFixed(0)} ms, ${saves.lost} lost; ${deletedAlongside} class folders of 10 pages deleted meanwhile | | | p99 ≤ ${TARGET.saveP99Ms} ms | ${verdict(saveMet)} |`,
      `| SMB edit by another client → found | ${smbWrites.changes} edits, p50 ${smbWrites.p50.toFixed(0)} ms, p99 ${smbWrites.p99.toFixed(0)} ms, max ${smbWrites.max.toFixed(0)} ms, ${smbWrites.lost} lost | | | p99 ≤ ${TARGET.smbWriteP99Ms} ms | ${verdict(smbWriteMet)} |`,
    ];
    const lines = [
      runLine(SCRIPT, load),
      `Share \`${SHARE}\`: ${seed.pages} pages seeded in ${seed.folders} folders on the DC's disk (bench/index/seed.ts) and indexed by one pass, ${sharePages} pages in all; the service with the testbed config, its change watch on, passes only when asked.`,
      `Recursive deletes: smbclient (encrypted) as anna; class folders made over SMB in rounds of 20 and found first (test/integration/wiki/recursive-deletes.ts).`,
      `Folder delete cost: documents written = the post-write hook's bulk upserts and deletes plus what passes wrote; pages seen = what the passes walked; SMB2 requests from Samba's profiling counters over the delete and until the service settled.`,
      `Saves: 4 writers over WebDAV (save-to-search.ts) while the DC administrator deletes seeded class folders with smbclient deltree, one every 0.5 s. SMB edits: 4 writers with the project's client (smb-write-to-search.ts), each edit changing the page's length.`,
      '',
      '| measurement | result | rate | compared with | target | |',
      '|---|---|---:|---|---|---|',
      ...rows,
      '',
    ];
    return report(HEADING, lines, [
      { figure: 'change watch handles per share', service: handles.join(', '), peer: '–', ratio: '–', target: `≤ ${TARGET.handles}`, met: handlesMet },
      { figure: `recursive deletes at the first try (of ${TREES}); gone p99 ms`, service: `${TREES - deletes.failed.length}; ${gone.p99.toFixed(0)}`, peer: '–', ratio: '–', target: `${TREES}; ≤ ${TARGET.goneMs}`, met: deletesMet },
      { figure: `documents for a ${FOLDER_PAGES}-page folder deleted`, service: String(touched), peer: `${sharePages} (a pass of the share)`, ratio: `${(touched / sharePages).toFixed(4)} ×`, target: `≤ ${TARGET.documentsPerPage * FOLDER_PAGES}`, met: costMet },
      { figure: 'WebDAV save → searchable while deleting folders, p99 ms', service: saves.p99.toFixed(0), peer: '–', ratio: '–', target: `≤ ${TARGET.saveP99Ms} ms`, met: saveMet },
      { figure: 'SMB edit → searchable, p99 ms', service: smbWrites.p99.toFixed(0), peer: '–', ratio: '–', target: `≤ ${TARGET.smbWriteP99Ms} ms`, met: smbWriteMet },
    ]);
  } finally {
    removeSeed(env, SHARE, ROOT);
    await removeSeedDocuments(es, ROOT).catch(() => undefined);
    await admin.stat(scratch).then(() => smbclient(env, env.dc_admin, [`deltree ${windows(scratch)}`]), () => undefined);
    await startJob(socketOf(service), { kind: 'pass' }).then((job) => job.finished).catch(() => undefined);
    await service.stop();
    await smb.close();
    await es.close();
    countSmbRequests(false);
  }
}

const SCRIPT = 'dist/bench/index/folder-deletes.js';
export const folderDeletesBench: Benchmark = { name: 'folder-deletes', script: SCRIPT, run };

await runAlone(import.meta.url, folderDeletesBench);
