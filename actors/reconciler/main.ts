// The reconciler actor: owns the wiki index. On start it makes sure the
// `wiki-md` alias fits this build (rebuilding when the mapping is older), takes
// the post-write hook's page changes, and runs a full drift-repair pass shortly
// after start and then every `reconciler.interval`. Pages are read and
// rendered by the supervisor's pools. With `elasticsearch.enabled: false` it
// never connects to Elasticsearch and ignores page changes.
import { Registry } from 'prom-client';
import type { Config } from '../../src/config/index.js';
import type { ReconcilerProtocol } from '../../src/messages/reconciler.js';
import type { SupervisorProtocol } from '../../src/messages/supervisor.js';
import { reconcilerMetrics } from '../../src/metrics/actor-metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { createSearchClient } from '../../src/search/client.js';
import { WikiIndexKeeper, type PassSummary } from '../../src/search/index-keeper.js';

/** The first pass waits a moment, so that start-up (and the supervisor's channel) settles first. */
const FIRST_PASS_DELAY_MS = 1_000;
/** After a pass that could not finish (Elasticsearch or a share unreachable), try again this soon. */
const RETRY_DELAY_MS = 30_000;

runActor<Config>(async (ctx) => {
  const { config, log } = ctx;
  if (!config.elasticsearch.enabled) {
    const handlers: ReconcilerProtocol = { pageChanged: async () => undefined };
    return { handlers: servingMetrics(handlers, new Registry()), health: () => ({ wiki: 'disabled (elasticsearch.enabled is false)' }) };
  }

  const supervisor = ctx.peer<SupervisorProtocol>('supervisor');
  const client = createSearchClient(config.elasticsearch.url);
  const keeper = new WikiIndexKeeper({
    client,
    source: {
      listPages: (server, share) => supervisor.listWikiPages(server, share),
      readPage: (page) => supervisor.readPage(page),
      renderPage: (source) => supervisor.renderPage(source),
    },
    shares: config.smb.shares.map((share) => ({ server: (share.server ?? config.smb.server)!, share: share.name })),
    bulk: { maxOperations: 500, flushIntervalMs: 500 },
    log,
  });

  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      void keeper.reconcile().then((pass: PassSummary) => {
        if (stopping) return;
        const interval = config.reconciler.interval;
        schedule(pass.errors.length === 0 ? interval : Math.min(interval, RETRY_DELAY_MS));
      });
    }, delayMs);
  };
  schedule(FIRST_PASS_DELAY_MS);

  const handlers: ReconcilerProtocol = {
    pageChanged: async (change) => keeper.pageChanged(change),
  };
  const registry = new Registry();
  registerStatMetrics(registry, () => keeper.stats(), reconcilerMetrics);
  return {
    handlers: servingMetrics(handlers, registry),
    health: () => ({ ...keeper.stats() }),
    async stop(timeoutMs) {
      stopping = true;
      clearTimeout(timer);
      await keeper.close(timeoutMs);
      await client.close();
    },
  };
});
