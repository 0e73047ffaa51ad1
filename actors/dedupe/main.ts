// The dedupe actor: decides which webhook event ids were accepted before.
// Alone (cluster.shared_state: none), or behind a balancer that sends each sender to one proxy by its key
// (cluster.event_ids: routed_by_key), it owns the ring of recently accepted ids,
// as memory every HTTP thread reads and writes with Atomics (check-and-insert
// under the ring's lock word; src/webhooks/dedupe-ring.ts). It is memory only:
// a restart forgets the ids, as the spec says (the fronts attach to the new
// incarnation's ring). A front that dies holding the lock leaves the ring
// half-written, so that ring is replaced by an empty one, as a restart would.
// With proxies that share their event ids (cluster.shared_state: elasticsearch, event_ids: shared) the ids
// live in Elasticsearch (src/webhooks/cluster-event-ids.ts): the fronts ask
// this actor, it asks the cluster, and prunes the ids beyond the window.
import { Registry } from 'prom-client';
import type { DedupeProtocol } from './protocol.js';
import { dedupeMetrics } from './metrics.js';
import type { ActorContextOf } from '../kinds.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import type { SharedEventIdSource } from '../../src/webhooks/cluster-event-ids.js';
import { eventIdsInCluster } from '../../src/webhooks/event-id-place.js';
import { DedupeRing } from '../../src/webhooks/dedupe-ring.js';

runActor(async (ctx: ActorContextOf<'dedupe'>) => {
  const capacity = ctx.config.webhooks.dedupe_size;
  // Loaded only when the ids are in the cluster: a proxy alone has no use for an Elasticsearch client in this thread.
  const shared = eventIdsInCluster(ctx.config) ? (await import('./shared-event-ids.js')).sharedEventIds(ctx) : undefined;
  let ring = new DedupeRing(capacity);
  /** Each front's lock tag; 1 is the ring's creator (this thread). */
  const holders = new Map<string, number>();
  const handlers: DedupeProtocol = {
    sharedRing: async (front) => {
      let holder = holders.get(front);
      if (holder === undefined) holders.set(front, holder = holders.size + 2);
      return { memory: ring.memory, holder };
    },
    ...(shared?.handlers ?? refusedWhenAlone),
  };
  const peerDisconnected = (peer: string) => {
    if (ring.lockHolder === 0 || ring.lockHolder !== holders.get(peer)) return;
    ctx.log.warn({ front: peer }, 'an http-front died holding the dedupe ring\'s lock; the ring starts empty');
    ring.retire();
    ring = new DedupeRing(capacity);
  };
  const health = () => ({
    rememberedEventIds: shared === undefined ? ring.size : 0,
    capacity,
    ...(shared === undefined ? {} : { sharedState: shared.status() }),
  });
  const registry = new Registry();
  registerStatMetrics(registry, health, dedupeMetrics);
  return { handlers: servingMetrics(handlers, registry), health, peerDisconnected, stop: async () => shared?.stop() };
});

/** The fronts ask these only when the proxies share state; a front that asks otherwise is a bug. */
const notShared = () => Promise.reject(new Error('the event ids are in this proxy\'s ring (cluster.shared_state none, or cluster.event_ids routed_by_key)'));
const refusedWhenAlone: SharedEventIdSource = { admitShared: notShared, seenShared: notShared, forgetShared: notShared };
