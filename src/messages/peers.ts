// Every actor kind and the protocol its instances serve: the one list of the actor kinds. ActorKind derives from
// it, the supervisor's plan of what it runs is a Record over ActorKind (supervisor/topology.ts), and an actor's
// `ctx.peer('dedupe')` takes the protocol from Peers (src/runtime/actor.ts).
import type { DavStateProtocol } from './dav-state.js';
import type { DedupeProtocol } from './dedupe.js';
import type { HttpFrontProtocol } from './http-front.js';
import type { LdapResolverProtocol } from './ldap-resolver.js';
import type { ReconcilerProtocol } from './reconciler.js';
import type { SupervisorProtocol } from './supervisor.js';
import type { WebhookStoreProtocol } from './webhook-store.js';

export interface ActorProtocols {
  'http-front': HttpFrontProtocol;
  'dedupe': DedupeProtocol;
  'webhook-store': WebhookStoreProtocol;
  'ldap-resolver': LdapResolverProtocol;
  'reconciler': ReconcilerProtocol;
  'dav-state': DavStateProtocol;
}

export type ActorKind = keyof ActorProtocols;

/** Whom an actor can call: actors by kind or instance name (`http-front#2`), and the supervisor. */
export interface Peers extends ActorProtocols {
  supervisor: SupervisorProtocol;
}
