// The dedupe actor: owns the ring of recently accepted webhook event ids, as
// memory every HTTP thread reads and writes with Atomics (check-and-insert
// under the ring's lock word; src/webhooks/dedupe-ring.ts). It is memory only:
// a restart forgets the ids, as the spec says (the fronts attach to the new
// incarnation's ring). A front that dies holding the lock leaves the ring
// half-written, so that ring is replaced by an empty one, as a restart would.
import { Registry } from 'prom-client';
import type { DedupeProtocol } from '../../src/messages/dedupe.js';
import { dedupeMetrics } from './metrics.js';
import type { ActorContextOf } from '../../src/messages/peers.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { DedupeRing } from '../../src/webhooks/dedupe-ring.js';

runActor(async (ctx: ActorContextOf<'dedupe'>) => {
  const capacity = ctx.config.webhooks.dedupe_size;
  let ring = new DedupeRing(capacity);
  /** Each front's lock tag; 1 is the ring's creator (this thread). */
  const holders = new Map<string, number>();
  const handlers: DedupeProtocol = {
    sharedRing: async (front) => {
      let holder = holders.get(front);
      if (holder === undefined) holders.set(front, holder = holders.size + 2);
      return { memory: ring.memory, holder };
    },
  };
  const peerDisconnected = (peer: string) => {
    if (ring.lockHolder === 0 || ring.lockHolder !== holders.get(peer)) return;
    ctx.log.warn({ front: peer }, 'an http-front died holding the dedupe ring\'s lock; the ring starts empty');
    ring.retire();
    ring = new DedupeRing(capacity);
  };
  const health = () => ({ rememberedEventIds: ring.size, capacity: ring.capacity });
  const registry = new Registry();
  registerStatMetrics(registry, health, dedupeMetrics);
  return { handlers: servingMetrics(handlers, registry), health, peerDisconnected };
});
