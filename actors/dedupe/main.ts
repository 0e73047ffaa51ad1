// The dedupe actor: the ring of recently accepted webhook event ids. One
// thread owns it, so check-and-insert is atomic for every HTTP thread. It is
// memory only: a restart forgets the ids, as the spec says.
import { Registry } from 'prom-client';
import type { Config } from '../../src/config/index.js';
import type { DedupeProtocol } from '../../src/messages/dedupe.js';
import { dedupeMetrics } from '../../src/metrics/actor-metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { DedupeRing } from '../../src/webhooks/dedupe-ring.js';

runActor<Config>(async (ctx) => {
  const ring = new DedupeRing(ctx.config.webhooks.dedupe_size);
  const handlers: DedupeProtocol = {
    seen: async (eventId) => ring.has(eventId),
    admitAll: async (eventIds) => eventIds.map((eventId) => ring.checkAndInsert(eventId)),
    forget: async (eventId) => ring.forget(eventId),
  };
  const health = () => ({ rememberedEventIds: ring.size, capacity: ring.capacity });
  const registry = new Registry();
  registerStatMetrics(registry, health, dedupeMetrics);
  return { handlers: servingMetrics(handlers, registry), health };
});
