// The dedupe actor's answers when proxies share their event ids (cluster.shared_state: elasticsearch, event_ids:
// shared): the ids are in the cluster (src/webhooks/cluster-event-ids.ts). main.ts loads this module only then, so
// that a proxy alone loads no Elasticsearch client in this thread.
import type { ActorContextOf } from '../kinds.js';
import { clusterIndices, clusterStateClient } from '../../src/search/shared-state.js';
import { ClusterEventIds, type SharedEventIdSource } from '../../src/webhooks/cluster-event-ids.js';

/** How often the ids beyond the window are deleted from the shared index (by one of the proxies). */
const PRUNE_INTERVAL_MS = 1_000;

/** The event ids in Elasticsearch: the index is made on first use (the cluster may be down at start). */
export function sharedEventIds(ctx: ActorContextOf<'dedupe'>) {
  const { config, log } = ctx;
  const ids = new ClusterEventIds(clusterStateClient(config, ctx.secrets), clusterIndices(config).events, config.webhooks.dedupe_size, PRUNE_INTERVAL_MS);
  let opened: Promise<void> | undefined;
  const ready = () => opened ??= ids.open(config.elasticsearch.index.number_of_replicas).catch((err: unknown) => {
    opened = undefined;
    throw err;
  });
  /** Logs the first failure of a streak, with what it was doing; the fronts answer 503 without the details. */
  let failing = false;
  const logged = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      await ready();
      const result = await work();
      failing = false;
      return result;
    } catch (err) {
      if (!failing) log.error({ err, index: ids.index }, `the shared event ids in Elasticsearch failed (${what}); webhook events get 503 until they answer`);
      failing = true;
      throw err;
    }
  };
  let pruned = 0;
  let pruning = false;
  const timer = setInterval(() => {
    if (pruning) return;
    pruning = true;
    logged('prune', () => ids.prune())
      .then((deleted) => { pruned += deleted; }, () => undefined)
      .finally(() => { pruning = false; });
  }, PRUNE_INTERVAL_MS);
  timer.unref();
  const handlers: SharedEventIdSource = {
    admitShared: (events) => logged('admit', async () => {
      const admissions = await ids.admitAll(events);
      const failed = admissions.find((a) => typeof a === 'object');
      if (failed !== undefined) log.warn({ index: ids.index, reason: failed.failed }, 'Elasticsearch did not take an event id; its sender gets 503');
      return admissions;
    }),
    seenShared: (eventId) => logged('seen', () => ids.seen(eventId)),
    forgetShared: (eventId) => logged('forget', () => ids.forget(eventId)),
  };
  return {
    handlers,
    status: () => ({ store: 'elasticsearch', index: ids.index, window: ids.window, failing, prunedEventIds: pruned }),
    stop: () => clearInterval(timer),
  };
}
