// The reconciler actor: owns the wiki index and decides what to index; its two pools do the work.
// - The wiki index (src/indexing/reconciler/wiki-index.ts) makes sure the `wiki-md` alias fits this build, migrating it
//   through a rebuild when its mapping is older.
// - The post-write hook (src/indexing/reconciler/page-changes.ts) applies WebDAV's page changes as a pass would.
// - The drift reconciler (src/indexing/reconciler/reconciler.ts) runs a pass shortly after start and then every
//   `reconciler.interval`, and the reindex / rebuild jobs of `fileproxy reindex`, one job at a time.
// - The admin channel (src/control-socket/server.ts) is the Unix socket `fileproxy reindex` talks to.
// - The proxy announcement (src/doctor/proxy-announcement.ts) tells `fileproxy doctor` which shares this proxy serves
//   into the index and with which shared-state settings, renewed every 30 s.
// - The change watches (src/indexing/reconciler/share-watch.ts, `reconciler.watch`), one per share, hold a CHANGE_NOTIFY on
//   the share root as the indexer account on this thread's own SMB client (one handle per share, nothing inside the
//   share), and feed the hook and the job queue (passes of the share or of the folders that changed); why they live
//   here and not in an actor of their own is said there.
// Hook, watch, passes and rebuilds share one pipeline: the smb-reader pool (actors/smb-reader/task.ts) lists folders
// and reads pages, this thread batches the pages it decided to index, and the indexer pool (actors/indexer/task.ts)
// renders each batch and writes it with `_bulk`. A task and its answer go straight between this thread and a pool
// thread; page bytes are moved, not copied. With `elasticsearch.enabled: false` it never connects to Elasticsearch,
// ignores page changes and refuses reindex requests.
import type { Client } from '@elastic/elasticsearch';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { describeSearchError } from '../../src/search/search-failure.js';
import type { Config } from '../../src/config/index.js';
import type { ActorContextOf } from '../kinds.js';
import type { ReconcilerProtocol } from './protocol.js';
import type { IndexerTasks } from '../indexer/protocol.js';
import type { SmbReaderTasks } from '../smb-reader/protocol.js';
import { PushBackTotals, reconcilerMetrics, type PassSummary } from './metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { threadHeapMetrics, type ThreadHeaps } from '../../src/metrics/thread-heaps.js';
import { poolTaskBundle } from '../../src/runtime/thread-bundles.js';
import { AdminChannel, type AdminTarget } from '../../src/control-socket/server.js';
import { osThreadId } from '../../src/common/background-priority.js';
import { CallBatcher } from '../../src/common/call-batcher.js';
import { adminSocketPath } from '../../src/control-socket/protocol.js';
import { transferListOf, type BulkWriter } from '../../src/indexing/operations.js';
import { listedPage } from '../../src/indexing/listing.js';
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { PageChanges } from '../../src/indexing/reconciler/page-changes.js';
import { RefreshThrottle } from '../../src/indexing/reconciler/refresh-throttle.js';
import type { PageChange } from '../../src/wiki/page-change.js';
import { isWikiPage } from '../../src/wiki/layout.js';
import { ShareWatch, type ShareWatchStats } from '../../src/indexing/reconciler/share-watch.js';
import { indexedFolders } from '../../src/indexing/reconciler/inventory.js';
import type { SmbClient } from '../../src/smb/index.js';
import { smbClientFromConfig } from '../../src/logon/smb-client.js';
import { IndexerShares } from '../../src/logon/indexer-shares.js';
import { JobRequestError, Reconciler, type ReconcilerShare } from '../../src/indexing/reconciler/reconciler.js';
import type { ShareSource } from '../../src/indexing/reconciler/share-pass.js';
import { WikiIndex } from '../../src/indexing/reconciler/wiki-index.js';
import { searchClientFromConfig } from '../../src/search/client.js';
import { runActor } from '../../src/runtime/actor.js';
import type { ServiceSecrets } from '../../src/runtime/control.js';
import { POOL_HEAP_LIMITS } from '../../src/runtime/heap-limits.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';
import { createLoopDelayBoard, setListening, takeWorstLoopDelay } from '../../src/pacing/loop-delay-board.js';
import { Pacer } from '../../src/pacing/pacer.js';
import { pacedSource } from '../../src/indexing/reconciler/paced-source.js';
import { ProxyAnnouncer } from '../../src/doctor/proxy-announcement.js';

/** The first pass waits a moment, so that start-up (and the supervisor's channel) settles first. */
const FIRST_PASS_DELAY_MS = 1_000;
/** After a pass that could not finish (Elasticsearch or a share unreachable), try again this soon. */
const RETRY_DELAY_MS = 30_000;

/** SMB tasks (page reads, folder listings) one smb-reader thread runs at once: they mostly wait for the server. */
const SMB_READS_PER_THREAD = 16;
/** Batches one indexer thread has at once: one rendered while another waits for Elasticsearch. */
const BATCHES_PER_INDEXER = 2;

type SmbReaderPool = WorkerPool<SmbReaderTasks>;
type IndexerPool = WorkerPool<IndexerTasks>;

interface Pools {
  readers: SmbReaderPool;
  indexers: IndexerPool;
  /** How often Elasticsearch pushed back the indexers' batches, as their answers said. */
  pushBack: PushBackTotals;
}

/** A share's pages through the smb-reader pool, as the indexer account. */
function poolSource(pool: SmbReaderPool, { server, share }: ReconcilerShare): ShareSource {
  // The folders a walk asks for in one turn (ordered-walk.ts asks half its lookahead at once) go to a thread as one
  // task: on the testbed's virtual machine a result's message cost its pool thread 120-150 µs of CPU, measured around
  // piscina's postMessage, against 9-25 µs to serialise the same result.
  const folders = (withContent: boolean) => new CallBatcher((paths: string[]) => pool.run({ type: 'list-wiki-folders', server, share, paths, ...(withContent ? { withContent } : {}) }));
  const listers = { plain: folders(false), withContent: folders(true) };
  return {
    listFolder: (path, withContent) => (withContent ? listers.withContent : listers.plain).call(path),
    listNames: (path) => pool.run({ type: 'list-names', server, share, path }),
    // A page the listing read needs no trip to the pool.
    readPage: async (path, known) => (known && listedPage({ server, share, path }, known)) ?? pool.run({ type: 'read-page', page: { server, share, path }, ...(known ? { known } : {}) }),
  };
}

/** Batches rendered and written by the indexer pool, their pages' bytes moved along; their back-offs added up. */
function poolBulk(pool: IndexerPool, pushBack: PushBackTotals): BulkWriter {
  return {
    write: async (target, operations) => {
      const result = await pool.run({ type: 'write-batch', target, operations }, transferListOf(operations));
      pushBack.add(result);
      return result;
    },
  };
}

/** The last pass in the shape the metrics read. */
function passSummary(pass: JobInfo | null): PassSummary | null {
  if (pass === null || pass.startedAt === null) return null;
  const { startedAt, durationMs, seen, indexed, removed, unreadable, failed, errors } = pass;
  return { startedAt, durationMs, listed: seen, indexed, deleted: removed, unreadable, failed, dropped: 0, errors };
}

/** Serves the admin channel; a service that cannot (another one owns the socket) still runs, and says why. */
async function openAdminChannel(path: string, target: AdminTarget, log: Parameters<typeof AdminChannel.listen>[2]): Promise<AdminChannel | string> {
  try {
    return await AdminChannel.listen(path, target, log);
  } catch (error) {
    const reason = `not served: ${describeSearchError(error).error}`;
    log.warn({ socket: path, reason }, 'admin channel not available; fileproxy reindex cannot reach this service');
    // /healthz answers without authentication: it says why by error code, never where the socket is (the log does).
    return `not served (${(error as NodeJS.ErrnoException).code ?? 'see the log'})`;
  }
}

/** Without Elasticsearch: page changes are ignored, reindex requests refused (with the reason). */
async function withoutIndex(socketPath: string, log: Logger) {
  const disabled = 'the wiki search index is disabled (elasticsearch.enabled is false in config.yml)';
  const refuse: AdminTarget = {
    submit: () => {
      throw new JobRequestError(disabled);
    },
    cancel: () => undefined,
  };
  const channel = await openAdminChannel(socketPath, refuse, log);
  const board = createLoopDelayBoard();
  const handlers: ReconcilerProtocol = { pageChanged: async () => undefined, loopDelayBoard: async () => board };
  return {
    handlers: servingMetrics(handlers, new Registry()),
    health: () => ({ wiki: 'disabled (elasticsearch.enabled is false)' }),
    stop: async () => {
      if (typeof channel !== 'string') await channel.close();
    },
  };
}

/**
 * The two pools, sized by `workers.smb_readers` and `workers.indexers`. A pool whose task module cannot load fails
 * the actor (as a failed start would) rather than its first pass; the check runs beside the start, so that a
 * restart does not wait for a pool thread to start too. A ping cut short by a stop of the service is no failure.
 */
function startPools(config: Config, secrets: ServiceSecrets, stopping: () => boolean): Pools {
  const workerData = { config, secrets };
  const readers: SmbReaderPool = new WorkerPool('smb-reader', poolTaskBundle('actors/smb-reader/task.js'), config.workers.smb_readers, workerData, {
    tasksPerThread: SMB_READS_PER_THREAD,
    resourceLimits: POOL_HEAP_LIMITS,
  });
  const indexers: IndexerPool = new WorkerPool('indexer', poolTaskBundle('actors/indexer/task.js'), config.workers.indexers, workerData, {
    tasksPerThread: BATCHES_PER_INDEXER,
    resourceLimits: POOL_HEAP_LIMITS,
  });
  const pings = [[readers.name, readers.run({ type: 'ping' })], [indexers.name, indexers.run({ type: 'ping' })]] as const;
  for (const [pool, ping] of pings) {
    ping.catch((err: unknown) => setImmediate(() => {
      if (stopping()) return;
      throw new Error(`the ${pool} pool cannot run tasks: ${err instanceof Error ? err.message : String(err)}`);
    }));
  }
  return { readers, indexers, pushBack: new PushBackTotals() };
}

/** One change watch per share, on this thread's own SMB client, or none with `reconciler.watch: false`. */
function startWatches(
  config: Config,
  secrets: ServiceSecrets,
  { shares, hook, reconciler, client, alias, log }: { shares: ReconcilerShare[]; hook: Pick<PageChanges, 'pageChanged'>; reconciler: Reconciler; client: Client; alias: string; log: Logger },
): { watchClient: SmbClient | null; watches: ShareWatch[] } {
  if (!config.reconciler.watch) return { watchClient: null, watches: [] };
  // Its idle timeout never ends a watch: a connection with a request pending is not idle.
  const watchClient = smbClientFromConfig(config.smb);
  const indexerShares = new IndexerShares(watchClient, new SmbLogons(config), config.smb.port, secrets);
  const watches = shares.map(({ server, share }) => new ShareWatch({
    server,
    share,
    smb: indexerShares.get(server, share),
    pageChanged: (change) => hook.pageChanged(change),
    requestPass: (folders, reason) => {
      // Never the folders: the service logs no paths.
      log.info({ share, folders: folders.includes('') ? 'all' : folders.length, reason }, 'change watch: pass asked for');
      reconciler.requestSharePass(share, 'watch', folders);
    },
    indexedFolders: (folder) => indexedFolders(client, { server, share }, { alias, folder }),
    log,
  }));
  watches.forEach((w) => w.start());
  return { watchClient, watches };
}

interface Pipeline {
  shares: ReconcilerShare[];
  index: WikiIndex;
  pageChanges: PageChanges;
  /** Makes the hook's batches searchable (its refresh). */
  saveRefresh: RefreshThrottle;
  /** The hook as the change watches and other actors call it. */
  hook: Pick<PageChanges, 'pageChanged'>;
  reconciler: Reconciler;
}

/**
 * The index, the post-write hook and the job queue on the two pools: the one pipeline every change takes.
 * `onPassFinished`: told of every pass that ended (the change watches reload the folders it covered).
 */
function startPipeline(
  config: Config,
  { pools, pacer, client, log }: { pools: Pools; pacer: Pacer; client: Client; log: Logger },
  onPassFinished: (pass: JobInfo, folders: readonly string[] | null) => void,
): Pipeline {
  const bulk = poolBulk(pools.indexers, pools.pushBack);
  const { index_prefix: alias, index: settings } = config.elasticsearch;
  const layout = { shards: settings.number_of_shards, replicas: settings.number_of_replicas, refreshIntervalMs: settings.refresh_interval };
  const shares = config.smb.shares.map((share) => ({ server: (share.server ?? config.smb.server)!, share: share.name }));
  // Passes, reindexes and rebuilds read at the pace the request path allows; a save (the hook) is not held back.
  const source = (share: ReconcilerShare) => pacedSource(poolSource(pools.readers, share), pacer);
  const index = new WikiIndex({ client, bulk, alias, layout, shares, source, log });
  // A save is searchable within half a refresh interval, not a whole one: at most two more refreshes per interval.
  const saveRefresh = new RefreshThrottle({
    refresh: async () => {
      await client.indices.refresh({ index: index.alias });
    },
    minGapMs: settings.refresh_interval / 2,
    log,
  });
  const pageChanges = new PageChanges({
    bulk,
    alias: index.alias,
    readPage: async (page, indexedVersion) => {
      return pools.readers.run({ type: 'read-changed-page', page, ...(indexedVersion === undefined ? {} : { indexedVersion }) });
    },
    writable: () => index.writable,
    refresh: () => saveRefresh.request(),
    log,
  });
  // A save waits for a reader and then an indexer thread. After a quiet spell both start at once, not one after the
  // other; then one of each stays for as long as the indexer's SMB session (smb.idle_timeout), so that the saves
  // that follow (an editing session) do not wait for a thread to start again.
  const hook = {
    pageChanged(change: PageChange): boolean {
      if (isWikiPage((change.type === 'page-moved' ? change.to : change.page).path)) {
        pools.readers.keepWarm({ type: 'ping' }, config.smb.idle_timeout);
        pools.indexers.keepWarm({ type: 'ping' }, config.smb.idle_timeout);
      }
      return pageChanges.pageChanged(change);
    },
  };
  const reconciler = new Reconciler({
    client,
    bulk,
    alias: index.alias,
    layout,
    index,
    shares,
    source,
    intervalMs: config.reconciler.interval,
    firstPassDelayMs: FIRST_PASS_DELAY_MS,
    retryDelayMs: RETRY_DELAY_MS,
    onPassFinished,
    log,
  });
  reconciler.start();
  return { shares, index, pageChanges, saveRefresh, hook, reconciler };
}

/** The reconciler's metrics (index, hook, passes, watches, back-offs) and its pool threads' heaps, read before each scrape. */
function pipelineMetrics({ index, pageChanges, reconciler }: Pipeline, pools: Pools, watchStats: () => Record<string, ShareWatchStats>) {
  const registry = new Registry();
  registerStatMetrics(registry, () => {
    const { passes, lastPass } = reconciler.status();
    return { ...index.stats(), ...pageChanges.stats(), passes, lastPass: passSummary(lastPass), watches: watchStats(), pushBack: pools.pushBack };
  }, reconcilerMetrics);
  let poolHeaps: ThreadHeaps = {};
  registerStatMetrics(registry, () => poolHeaps, threadHeapMetrics);
  const refreshPoolHeaps = async () => {
    const [readers, indexers] = await Promise.all([pools.readers.heaps(), pools.indexers.heaps()]);
    poolHeaps = { ...readers, ...indexers };
  };
  return { registry, refreshPoolHeaps };
}

runActor(async (ctx: ActorContextOf<'reconciler'>) => {
  const { config, log } = ctx;
  // Unlike its pools, this thread keeps the normal priority: the post-write hook and the change watch are on the way
  // from a save to search, and at nice 10 a busy host kept the thread off a core long enough to be seen there.
  const threadId = osThreadId() ?? null;
  const socketPath = adminSocketPath(config.storage.data_dir);
  if (!config.elasticsearch.enabled) return withoutIndex(socketPath, log);

  let stopping = false;
  const pools = startPools(config, ctx.secrets, () => stopping);
  const client = searchClientFromConfig(config.elasticsearch, ctx.secrets.elasticsearch, 'indexing');
  const board = createLoopDelayBoard();
  const boardView = new Int32Array(board);
  const pacer = new Pacer(config.reconciler.pace, {
    takeWorstDelayUs: () => takeWorstLoopDelay(boardView),
    listen: (on) => setListening(boardView, on),
  });
  let watches: ShareWatch[] = [];
  const pipeline = startPipeline(config, { pools, pacer, client, log }, (pass, folders) => {
    watches.filter((w) => pass.shares.includes(w.share)).forEach((w) => void w.reloadFolders(folders ?? ['']));
  });
  const { index, pageChanges, saveRefresh, hook, reconciler } = pipeline;
  const { watchClient, ...started } = startWatches(config, ctx.secrets, { ...pipeline, client, alias: index.alias, log });
  watches = started.watches;
  const watchStats = () => Object.fromEntries(watches.map((w) => [w.share, w.stats()]));
  const channel = await openAdminChannel(socketPath, reconciler, log);
  // This proxy's part in the index it may share with others: which shares it serves and its shared-state settings,
  // for `fileproxy doctor` (src/doctor/proxy-announcement.ts; why this thread announces: docs/architecture.md).
  const announcer = new ProxyAnnouncer(client, config, log);
  announcer.start();

  const handlers: ReconcilerProtocol = {
    pageChanged: async (change) => {
      hook.pageChanged(change);
    },
    loopDelayBoard: async () => board,
  };
  const { registry, refreshPoolHeaps } = pipelineMetrics(pipeline, pools, watchStats);
  return {
    handlers: servingMetrics(handlers, registry, refreshPoolHeaps),
    health: () => ({
      ...index.stats(),
      ...pageChanges.stats(),
      ...reconciler.status(),
      pace: pacer.stats(),
      watch: watchClient === null ? 'disabled (reconciler.watch is false)' : watchStats(),
      // The thread's OS id (top -H, /proc/<pid>/task/<tid>): the watch's and the hook's CPU is this thread's.
      osThreadId: threadId,
      adminChannel: typeof channel === 'string' ? channel : 'listening',
    }),
    pools: () => ({ [pools.readers.name]: pools.readers.health(), [pools.indexers.name]: pools.indexers.health() }),
    async stop(timeoutMs) {
      stopping = true;
      if (typeof channel !== 'string') await channel.close();
      index.stop();
      await announcer.stop();
      await Promise.all(watches.map((w) => w.stop()));
      await watchClient?.close();
      await reconciler.stop(timeoutMs);
      await pageChanges.close(timeoutMs);
      saveRefresh.close();
      await pools.readers.close(timeoutMs);
      await pools.indexers.close(timeoutMs);
      await client.close();
    },
  };
});
