// Which actors run, how, and which of them talk to each other. Every actor also
// gets a channel to the supervisor itself (peer name `supervisor`).
import type { ResourceLimits } from 'node:worker_threads';
import type { Config } from '../src/config/index.js';
import type { ActorKind } from '../src/messages/peers.js';
import { STATEFUL_HEAP_LIMITS, TRANSIENT_HEAP_LIMITS } from '../src/runtime/heap-limits.js';

/** How the supervisor runs the instances of one actor kind (its code: actors/<kind>/main.ts). */
export interface ActorPlan {
  instances: number;
  heapLimits: ResourceLimits;
}

/** Every actor kind, in start order; a Record over ActorKind (src/messages/peers.ts), so none can be left out. */
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

/** Pairs of actor kinds that get a channel between every instance of each. */
export const ACTOR_LINKS: ReadonlyArray<readonly [ActorKind, ActorKind]> = [
  ['http-front', 'dedupe'],
  // The store pushes the webhook clients to every front; fronts call it for admin and user-event requests.
  ['http-front', 'webhook-store'],
  ['http-front', 'ldap-resolver'],
  // The login throttle lives in the ldap-resolver; the store asks it before an admin login binds.
  ['webhook-store', 'ldap-resolver'],
  // Post-write hook: WebDAV on the fronts tells the reconciler which wiki pages changed.
  ['http-front', 'reconciler'],
  // WebDAV locks and dead properties, shared by every front.
  ['http-front', 'dav-state'],
];

export function linked(a: ActorKind, b: ActorKind): boolean {
  return ACTOR_LINKS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}
