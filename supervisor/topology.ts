// Which actors run, and how. Which of them talk to each other is declared beside their protocols (ACTOR_LINKS in
// actors/kinds.ts: the actors, which may not import supervisor/, type their peers by it); every actor also
// gets a channel to the supervisor itself (peer name `supervisor`).
import type { ResourceLimits } from 'node:worker_threads';
import type { Config } from '../src/config/index.js';
import { ACTOR_LINKS, type ActorKind } from '../actors/kinds.js';
import { STATEFUL_HEAP_LIMITS, TRANSIENT_HEAP_LIMITS } from '../src/runtime/heap-limits.js';

/** How the supervisor runs the instances of one actor kind (its code: actors/<kind>/main.ts). */
interface ActorPlan {
  instances: number;
  heapLimits: ResourceLimits;
}

/** Every actor kind, in start order; a Record over ActorKind (actors/kinds.ts), so none can be left out. */
export function actorPlans(config: Config): Record<ActorKind, ActorPlan> {
  const single = { instances: 1, heapLimits: STATEFUL_HEAP_LIMITS };
  return {
    'http-front': { instances: config.workers.http_front, heapLimits: STATEFUL_HEAP_LIMITS },
    'dedupe': single,
    'webhook-store': single,
    'ldap-resolver': single,
    'reconciler': { instances: 1, heapLimits: TRANSIENT_HEAP_LIMITS },
    'dav-state': single,
  };
}

/** Whether the instances of two kinds get channels to each other. */
export function linked(a: ActorKind, b: ActorKind): boolean {
  return ACTOR_LINKS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}
