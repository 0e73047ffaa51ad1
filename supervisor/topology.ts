// Which actors run and which of them talk to each other. Every actor also
// gets a channel to the supervisor itself (peer name `supervisor`).
import type { ActorKind } from '../src/runtime/control.js';

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

/** Instance names: one instance is named after its kind, several get `#n`. */
export function instanceNames(kind: ActorKind, count: number): string[] {
  if (count === 1) return [kind];
  return Array.from({ length: count }, (_, i) => `${kind}#${i + 1}`);
}

/** The kind part of an instance name: `http-front#2` → `http-front`. */
export function kindOfInstance(name: string): string {
  const hash = name.indexOf('#');
  return hash === -1 ? name : name.slice(0, hash);
}

export function linked(a: ActorKind, b: ActorKind): boolean {
  return ACTOR_LINKS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}
