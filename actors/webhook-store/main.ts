// The webhook-store actor: owns the webhook client registry (a durable file in
// storage.data_dir), the cache of service-eventhandler events per user, and the
// logins of the webhook APIs. Each http-front keeps a read replica of the
// clients for its key checks, under a lease the store renews; the store pushes
// the full list to every front after each change and to each front that
// (re)connects, retrying until the front has it. The admin call returns when
// every front has the new list or its lease on the old one has ended (then it
// answers 503), so a deleted client's key is never accepted after the delete.
// Proxies that share state (cluster.shared_state: elasticsearch) keep the
// registry in one Elasticsearch document instead of the file
// (src/webhooks/cluster-client-store.ts); each store polls it and pushes a
// change another proxy made to its own fronts, so every proxy knows a new or
// deleted client within a second.
import { Registry } from 'prom-client';
import { remoteLoginGuard } from '../../src/auth/login-guard.js';
import type { ActorContextOf } from '../kinds.js';
import type { WebhookStoreProtocol } from './protocol.js';
import { webhookStoreMetrics } from './metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { isInstanceOf, type InstanceName } from '../../src/runtime/instance-names.js';
import { maskClient } from '../../src/webhooks/client.js';
import { WebhookClientRegistry } from '../../src/webhooks/registry.js';
import { ClientListReplication } from '../../src/webhooks/replication.js';
import { FileWebhookClientStore } from '../../src/webhooks/store.js';
import { UserEventsCache } from '../../src/webhooks/user-events.js';
import { createWebhookLogins } from './logins.js';

runActor(async (ctx: ActorContextOf<'webhook-store'>) => {
  const { config, log } = ctx;
  // Loaded only when the list is shared: a proxy alone has no use for an Elasticsearch client in this thread.
  const shared = config.cluster.shared_state === 'elasticsearch' ? await import('./shared-registry.js') : undefined;
  const registry = shared ? await shared.openSharedRegistry(ctx) : await WebhookClientRegistry.open(
    new FileWebhookClientStore(config.storage.data_dir),
    { supportedUserAgents: config.webhooks.supported_user_agents },
  );
  const userEvents = new UserEventsCache({
    ttlMs: config.webhooks.user_events.ttl,
    maxPerUser: config.webhooks.user_events.max_per_user,
    maxTotal: config.webhooks.user_events.max_total,
    maxBytes: config.webhooks.user_events.max_bytes,
    maxEventSize: config.webhooks.user_events.max_event_size,
  });
  const guard = remoteLoginGuard(ctx.peer('ldap-resolver'), log);
  const logins = createWebhookLogins(config, guard, (message) => log.error(message));

  const replication = new ClientListReplication<InstanceName<'http-front'>>({
    clients: () => registry.all(),
    link: (front) => ctx.peer(front),
    isConnected: (front) => ctx.connectedPeers().includes(front),
    leaseMs: config.webhooks.replica_lease,
    onUnconfirmed: (front, err) => log.warn({ err, peer: front },
      'an http-front did not confirm the webhook client list; retrying, and it refuses webhook keys (503) once its lease ends'),
  });

  const handlers: WebhookStoreProtocol = {
    authenticateAdmin: (authorization, clientAddress) => logins.admin(authorization, clientAddress),
    authenticateEventReader: (authorization, username, clientAddress) => logins.eventReader(authorization, username, clientAddress),
    async createClient(userAgent) {
      const client = await registry.create(userAgent);
      await replication.changed();
      return maskClient(client);
    },
    listClients: async (userAgent) => registry.list(userAgent === undefined ? {} : { userAgent }),
    revealClient: async (id) => registry.reveal(id),
    async deleteClients(ids) {
      const result = await registry.delete(ids);
      if (result.deleted.length > 0) await replication.changed();
      return result;
    },
    addUserEvents: async (events) => {
      for (const { username, event } of events) userEvents.add(username, event);
    },
    userEvents: async (username) => userEvents.list(username),
  };
  log.info({ clients: registry.all().length, shared_state: config.cluster.shared_state }, 'webhook client registry loaded');
  const polling = shared?.pollSharedList(registry, replication, ctx);
  const health = () => ({
    webhookClients: registry.all().length,
    cachedUserEvents: userEvents.totalEvents,
    cachedUserEventBytes: userEvents.totalBytes,
    webhookClientReplicas: replication.status(),
  });
  const metrics = new Registry();
  registerStatMetrics(metrics, health, webhookStoreMetrics);
  return {
    handlers: servingMetrics(handlers, metrics),
    peerConnected: (peer) => {
      if (isInstanceOf(peer, 'http-front')) replication.connected(peer);
    },
    health,
    stop: async () => {
      polling?.stop();
      replication.stop();
    },
  };
});
