// The reconciler actor: owns the wiki index.
// - The wiki index (src/reconcile/wiki-index.ts) makes sure the `wiki-md` alias fits this build, migrating it
//   through a rebuild when its mapping is older.
// - The post-write hook (src/reconcile/page-changes.ts) applies WebDAV's page changes as a pass would.
// - The drift reconciler (src/reconcile/reconciler.ts) runs a pass shortly after start and then every
//   `reconciler.interval`, and the reindex / rebuild jobs of `fileproxy reindex`, one job at a time.
// - The admin channel (src/reconcile/admin-server.ts) is the Unix socket `fileproxy reindex` talks to.
// Pages are listed, read and rendered in the supervisor's smb-reader pool, for passes and hook alike. With `elasticsearch.enabled: false` it never
// connects to Elasticsearch, ignores page changes and refuses reindex requests.
import { Registry } from 'prom-client';
import type { Config } from '../../src/config/index.js';
import type { ReconcilerProtocol } from '../../src/messages/reconciler.js';
import type { SupervisorProtocol } from '../../src/messages/supervisor.js';
import { reconcilerMetrics, type PassSummary } from '../../src/metrics/actor-metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { AdminChannel, type AdminTarget } from '../../src/reconcile/admin-server.js';
import { runAsBackgroundThread } from '../../src/reconcile/background-priority.js';
import { adminSocketPath } from '../../src/reconcile/admin-protocol.js';
import type { JobInfo } from '../../src/reconcile/jobs.js';
import { PageChanges } from '../../src/reconcile/page-changes.js';
import { JobRequestError, Reconciler, type ReconcilerShare } from '../../src/reconcile/reconciler.js';
import type { ShareSource } from '../../src/reconcile/share-pass.js';
import { WikiIndex } from '../../src/reconcile/wiki-index.js';
import { runActor } from '../../src/runtime/actor.js';
import type { Remote } from '../../src/runtime/rpc.js';
import { createSearchClient } from '../../src/search/client.js';
import { describeError } from '../../src/search/log.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';

/** The first pass waits a moment, so that start-up (and the supervisor's channel) settles first. */
const FIRST_PASS_DELAY_MS = 1_000;
/** After a pass that could not finish (Elasticsearch or a share unreachable), try again this soon. */
const RETRY_DELAY_MS = 30_000;

/** A share's pages through the supervisor's pools, as the indexer account. */
function poolSource(supervisor: Remote<SupervisorProtocol>, { server, share }: ReconcilerShare): ShareSource {
  return {
    listFolder: (path) => supervisor.listWikiFolder(server, share, path),
    listNames: (path) => supervisor.listFolderNames(server, share, path),
    loadDocument: (path, known) => supervisor.loadPageDocument({ server, share, path }, known),
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
    return reason;
  }
}

runActor<Config>(async (ctx) => {
  const { config, log } = ctx;
  runAsBackgroundThread();
  const socketPath = adminSocketPath(config.storage.data_dir);
  if (!config.elasticsearch.enabled) {
    const disabled = 'the wiki search index is disabled (elasticsearch.enabled is false in config.yml)';
    const refuse: AdminTarget = {
      submit: () => {
        throw new JobRequestError(disabled);
      },
      cancel: () => undefined,
      status: () => {
        throw new JobRequestError(disabled);
      },
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

  const supervisor = ctx.peer<SupervisorProtocol>('supervisor');
  // Background writes: a _bulk of up to 5 MiB may take longer than the search default of 10 s on a busy
  // sidecar, and a timed-out batch stops the whole pass. No request waits on this thread's calls.
  const client = createSearchClient(config.elasticsearch.url, { requestTimeoutMs: 60_000 });
  const shares = config.smb.shares.map((share) => ({ server: (share.server ?? config.smb.server)!, share: share.name }));
  const source = (share: ReconcilerShare) => poolSource(supervisor, share);
  const index = new WikiIndex({ client, alias: DEFAULT_ALIAS, shares, source, log });
  const hook = new PageChanges({
    client,
    alias: index.alias,
    loadDocument: (page) => supervisor.loadPageDocument(page),
    writable: () => index.writable,
    log,
  });
  const reconciler = new Reconciler({
    client,
    alias: index.alias,
    index,
    shares,
    source,
    intervalMs: config.reconciler.interval,
    firstPassDelayMs: FIRST_PASS_DELAY_MS,
    retryDelayMs: RETRY_DELAY_MS,
    log,
  });
  reconciler.start();
  const channel = await openAdminChannel(socketPath, reconciler, log);

  const handlers: ReconcilerProtocol = {
    pageChanged: async (change) => hook.pageChanged(change),
  };
  const registry = new Registry();
  registerStatMetrics(registry, () => {
    const { passes, lastPass } = reconciler.status();
    return { ...index.stats(), ...hook.stats(), passes, lastPass: passSummary(lastPass) };
  }, reconcilerMetrics);
  return {
    handlers: servingMetrics(handlers, registry),
    health: () => ({ ...index.stats(), ...hook.stats(), ...reconciler.status(), adminChannel: typeof channel === 'string' ? channel : channel.path }),
    async stop(timeoutMs) {
      if (typeof channel !== 'string') await channel.close();
      index.stop();
      await reconciler.stop(timeoutMs);
      await hook.close(timeoutMs);
      await client.close();
    },
  };
});
