// The webhook client list of proxies that share state (cluster.shared_state: elasticsearch): opened from the
// cluster (src/webhooks/cluster-client-store.ts) and read again every SHARED_POLL_MS, so that a client created or
// deleted through another proxy reaches this proxy's fronts. main.ts loads this module only then, so that a proxy
// alone loads no Elasticsearch client in this thread.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ActorContextOf } from '../kinds.js';
import type { InstanceName } from '../../src/runtime/instance-names.js';
import { clusterIndices, clusterStateClient } from '../../src/search/shared-state.js';
import { ElasticsearchWebhookClientStore } from '../../src/webhooks/cluster-client-store.js';
import { WebhookClientRegistry } from '../../src/webhooks/registry.js';
import type { ClientListReplication } from '../../src/webhooks/replication.js';

/**
 * How often a store whose proxies share state reads the shared list: a client created or deleted through another
 * proxy reaches this proxy's fronts within this plus one push (the README promises 1 s).
 */
const SHARED_POLL_MS = 250;
/** Pause between attempts to reach the cluster at start (the fronts answer 503 meanwhile). */
const OPEN_RETRY_MS = 2_000;

/** The registry in the shared index; waits until the cluster answers (logging the first failure). */
export async function openSharedRegistry(ctx: ActorContextOf<'webhook-store'>): Promise<WebhookClientRegistry> {
  const { config, log } = ctx;
  const store = new ElasticsearchWebhookClientStore(clusterStateClient(config, ctx.secrets), clusterIndices(config).clients);
  for (let attempt = 1; ; attempt++) {
    try {
      await store.open(config.elasticsearch.index.number_of_replicas);
      return await WebhookClientRegistry.open(store, { supportedUserAgents: config.webhooks.supported_user_agents });
    } catch (err) {
      if (attempt === 1) log.error({ err, index: store.index }, 'the shared webhook client list cannot be read; retrying, and webhook keys get 503 until it is');
      await sleep(OPEN_RETRY_MS);
    }
  }
}

/** Reads the shared list every SHARED_POLL_MS; a change another proxy made goes to this proxy's fronts. */
export function pollSharedList(
  registry: WebhookClientRegistry,
  replication: ClientListReplication<InstanceName<'http-front'>>,
  { log }: ActorContextOf<'webhook-store'>,
): { stop(): void } {
  let stopped = false;
  let failing = false;
  void (async () => {
    while (!stopped) {
      try {
        if (await registry.reload()) await replication.changed();
        failing = false;
      } catch (err) {
        // The fronts keep the last list under its lease, renewed meanwhile: a cluster that is down for a while
        // leaves the keys as they were when it went, as a single proxy's file would.
        if (!failing) log.warn({ err }, 'the shared webhook client list cannot be read; retrying');
        failing = true;
      }
      await sleep(SHARED_POLL_MS);
    }
  })();
  return { stop: () => { stopped = true; } };
}
