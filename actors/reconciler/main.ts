// The reconciler actor: owns the wiki index.
// - The wiki index (src/reconcile/wiki-index.ts) makes sure the `wiki-md` alias fits this build, migrating it
//   through a rebuild when its mapping is older.
// - The post-write hook (src/reconcile/page-changes.ts) applies WebDAV's page changes as a pass would.
// - The drift reconciler (src/reconcile/reconciler.ts) runs a pass shortly after start and then every
//   `reconciler.interval`, and the reindex / rebuild jobs of `fileproxy reindex`, one job at a time.
// - The admin channel (src/control-socket/server.ts) is the Unix socket `fileproxy reindex` talks to.
// - The change watches (src/reconcile/share-watch.ts, `reconciler.watch`), one per share, hold a CHANGE_NOTIFY on
//   the share root as the indexer account on this thread's own SMB client (one handle per share, nothing inside the
//   share), and feed the hook and the job queue (passes of the share or of the folders that changed); why they live
//   here and not in an actor of their own is said there.
// Pages are listed, read and rendered in the actor's own smb-reader pool (actors/smb-reader/task.ts), for passes and
// the hook alike: a task and its answer go straight between this thread and a pool thread. With `elasticsearch.enabled: false` it never
// connects to Elasticsearch, ignores page changes and refuses reindex requests.
import { Registry } from 'prom-client';
import { describeError } from '../../src/common/describe-error.js';
import type { ActorContextOf } from '../../src/messages/peers.js';
import type { ReconcilerProtocol } from '../../src/messages/reconciler.js';
import type { SmbReaderResult, SmbReaderTask } from '../../src/messages/pools.js';
import { reconcilerMetrics, type PassSummary } from './metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { threadHeapMetrics, type ThreadHeaps } from '../../src/metrics/thread-heaps.js';
import { AdminChannel, type AdminTarget } from '../../src/control-socket/server.js';
import { osThreadId } from '../../src/reconcile/background-priority.js';
import { adminSocketPath } from '../../src/control-socket/protocol.js';
import type { JobInfo } from '../../src/reconcile/jobs.js';
import { PageChanges } from '../../src/reconcile/page-changes.js';
import { ShareWatch } from '../../src/reconcile/share-watch.js';
import { indexedFolders } from '../../src/search/inventory.js';
import { SmbClient, SmbPool } from '../../src/smb/index.js';
import { JobRequestError, Reconciler, type ReconcilerShare } from '../../src/reconcile/reconciler.js';
import type { ShareSource } from '../../src/reconcile/share-pass.js';
import { WikiIndex } from '../../src/reconcile/wiki-index.js';
import { runActor } from '../../src/runtime/actor.js';
import { TRANSIENT_HEAP_LIMITS } from '../../src/runtime/heap-limits.js';
import { resultOf, WorkerPool } from '../../src/runtime/worker-pool.js';
import { createSearchClient } from '../../src/search/client.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';

/** The first pass waits a moment, so that start-up (and the supervisor's channel) settles first. */
const FIRST_PASS_DELAY_MS = 1_000;
/** After a pass that could not finish (Elasticsearch or a share unreachable), try again this soon. */
const RETRY_DELAY_MS = 30_000;

/** SMB tasks (page reads, folder listings) one smb-reader thread runs at once. */
const SMB_READS_PER_THREAD = 16;

type SmbReaderPool = WorkerPool<SmbReaderTask, SmbReaderResult>;

/** A share's pages through the smb-reader pool, as the indexer account. */
function poolSource(pool: SmbReaderPool, { server, share }: ReconcilerShare): ShareSource {
  return {
    listFolder: async (path) => resultOf(await pool.run({ type: 'list-wiki-folder', server, share, path }), 'wiki-folder').listing,
    listNames: async (path) => resultOf(await pool.run({ type: 'list-names', server, share, path }), 'names').listing,
    loadDocument: async (path, known) => {
      const task: SmbReaderTask = { type: 'load-page-document', page: { server, share, path }, ...(known ? { known } : {}) };
      return resultOf(await pool.run(task), 'page-document').outcome;
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
    const reason = `not served: ${describeError(error).error}`;
    log.warn({ socket: path, reason }, 'admin channel not available; fileproxy reindex cannot reach this service');
    // /healthz answers without authentication: it says why by error code, never where the socket is (the log does).
    return `not served (${(error as NodeJS.ErrnoException).code ?? 'see the log'})`;
  }
}

runActor(async (ctx: ActorContextOf<'reconciler'>) => {
  const { config, log } = ctx;
  // Unlike its smb-reader pool, this thread keeps the normal priority: the post-write hook and the change watch are on
  // the way from a save to search, and at nice 10 a busy host kept the thread off a core for 5 to 20 ms at a time.
  const threadId = osThreadId() ?? null;
  const socketPath = adminSocketPath(config.storage.data_dir);
  if (!config.elasticsearch.enabled) {
    const disabled = 'the wiki search index is disabled (elasticsearch.enabled is false in config.yml)';
    const refuse: AdminTarget = {
      submit: () => {
        throw new JobRequestError(disabled);
      },
      cancel: () => undefined,
    };
    const channel = await openAdminChannel(socketPath, refuse, log);
    const handlers: ReconcilerProtocol = { pageChanged: async () => undefined };
    return {
      handlers: servingMetrics(handlers, new Registry()),
      health: () => ({ wiki: 'disabled (elasticsearch.enabled is false)' }),
      stop: async () => {
        if (typeof channel !== 'string') await channel.close();
      },
    };
  }

  // SMB reads mostly wait for the server: each thread keeps several in flight on its connection.
  const pool: SmbReaderPool = new WorkerPool('smb-reader', new URL('../smb-reader/task.js', import.meta.url), config.workers.smb_readers, {
    config,
    secrets: ctx.secrets,
  }, { tasksPerThread: SMB_READS_PER_THREAD, resourceLimits: TRANSIENT_HEAP_LIMITS });
  // A pool whose task module cannot load fails the actor (as a failed start would) rather than its first pass; the
  // check runs beside the start, so that a restart does not wait for a pool thread to start too. A ping cut short
  // by a stop of the service is no failure.
  let stopping = false;
  pool.run({ type: 'ping' }).catch((err: unknown) => setImmediate(() => {
    if (stopping) return;
    throw new Error(`the smb-reader pool cannot run tasks: ${err instanceof Error ? err.message : String(err)}`);
  }));
  // Background writes: a _bulk of up to 5 MiB may take longer than the search default of 10 s on a busy
  // sidecar, and a timed-out batch stops the whole pass. No request waits on this thread's calls.
  const { nodes, index_prefix: alias, index: settings } = config.elasticsearch;
  const client = createSearchClient({ nodes, ...ctx.secrets.elasticsearch }, { requestTimeoutMs: 60_000 });
  const layout = { shards: settings.number_of_shards, replicas: settings.number_of_replicas, refreshIntervalMs: settings.refresh_interval };
  const shares = config.smb.shares.map((share) => ({ server: (share.server ?? config.smb.server)!, share: share.name }));
  const source = (share: ReconcilerShare) => poolSource(pool, share);
  const index = new WikiIndex({ client, alias, layout, shares, source, log });
  const hook = new PageChanges({
    client,
    alias: index.alias,
    loadDocument: async (page, indexedVersion) => {
      const task: SmbReaderTask = { type: 'load-changed-page', page, ...(indexedVersion === undefined ? {} : { indexedVersion }) };
      return resultOf(await pool.run(task), 'changed-page').outcome;
    },
    writable: () => index.writable,
    log,
  });
  let watches: ShareWatch[] = [];
  const reconciler = new Reconciler({
    client,
    alias: index.alias,
    layout,
    index,
    shares,
    source,
    intervalMs: config.reconciler.interval,
    firstPassDelayMs: FIRST_PASS_DELAY_MS,
    retryDelayMs: RETRY_DELAY_MS,
    onPassFinished: (pass, folders) => watches.filter((w) => pass.shares.includes(w.share)).forEach((w) => void w.reloadFolders(folders ?? [''])),
    log,
  });
  reconciler.start();
  const watchClient = config.reconciler.watch ? new SmbClient(new SmbPool({
    requestTimeoutMs: config.smb.request_timeout,
    minDialect: config.smb.min_dialect,
    requireEncryption: config.smb.require_encryption,
  })) : null;
  if (watchClient !== null) {
    const logons = new SmbLogons(config);
    watches = shares.map(({ server, share }) => new ShareWatch({
      server,
      share,
      smb: watchClient.share({ host: server, port: config.smb.port, ...logons.indexer(server, ctx.secrets), share }),
      pageChanged: (change) => hook.pageChanged(change),
      requestPass: (folders, reason) => {
        // Never the folders: the service logs no paths.
        log.info({ share, folders: folders.includes('') ? 'all' : folders.length, reason }, 'change watch: pass asked for');
        reconciler.requestSharePass(share, 'watch', folders);
      },
      indexedFolders: (folder) => indexedFolders(client, { server, share }, { alias: index.alias, folder }),
      log,
    }));
    watches.forEach((w) => w.start());
  }
  const watchStats = () => Object.fromEntries(watches.map((w) => [w.share, w.stats()]));
  const channel = await openAdminChannel(socketPath, reconciler, log);

  const handlers: ReconcilerProtocol = {
    pageChanged: async (change) => {
      hook.pageChanged(change);
    },
  };
  const registry = new Registry();
  registerStatMetrics(registry, () => {
    const { passes, lastPass } = reconciler.status();
    return { ...index.stats(), ...hook.stats(), passes, lastPass: passSummary(lastPass), watches: watchStats() };
  }, reconcilerMetrics);
  let poolHeaps: ThreadHeaps = {};
  registerStatMetrics(registry, () => poolHeaps, threadHeapMetrics);
  const refreshPoolHeaps = async () => { poolHeaps = await pool.heaps(); };
  return {
    handlers: servingMetrics(handlers, registry, refreshPoolHeaps),
    health: () => ({
      ...index.stats(),
      ...hook.stats(),
      ...reconciler.status(),
      watch: watchClient === null ? 'disabled (reconciler.watch is false)' : watchStats(),
      // The thread's OS id (top -H, /proc/<pid>/task/<tid>): the watch's and the hook's CPU is this thread's.
      osThreadId: threadId,
      adminChannel: typeof channel === 'string' ? channel : 'listening',
    }),
    pools: () => ({ [pool.name]: pool.health() }),
    async stop(timeoutMs) {
      stopping = true;
      if (typeof channel !== 'string') await channel.close();
      index.stop();
      await Promise.all(watches.map((w) => w.stop()));
      await watchClient?.close();
      await reconciler.stop(timeoutMs);
      await hook.close(timeoutMs);
      await pool.close(timeoutMs);
      await client.close();
    },
  };
});
