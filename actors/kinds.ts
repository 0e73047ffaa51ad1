// Every actor kind, the protocol its instances serve, which kinds talk to each other, and what every actor may ask
// the supervisor: the one list of each.
// ActorKind derives from the protocols, the supervisor's plan of what it runs is a Record over ActorKind
// (supervisor/topology.ts), the supervisor wires the channels of ACTOR_LINKS, and an actor's context (ActorContextOf)
// serves exactly its protocol and reaches only the kinds linked to its own, so that a handler its protocol does not
// declare, or a call to a kind it has no channel to, fails to compile (test/unit/types/actor-context.ts).
import type { Config } from '../src/config/index.js';
import type { ServiceSecrets } from '../src/runtime/control.js';
import type { ReplayVerdict } from '../src/kerberos/replay-cache.js';
import type { ReadinessReport } from '../src/metrics/readiness.js';
import type { MetricsSource } from '../src/metrics/snapshot.js';
import type { HealthReport } from '../src/runtime/health.js';
import type { ActorContext } from '../src/runtime/actor.js';
import type { DavStateProtocol } from './dav-state/protocol.js';
import type { DedupeProtocol } from './dedupe/protocol.js';
import type { HttpFrontProtocol } from './http-front/protocol.js';
import type { LdapResolverProtocol } from './ldap-resolver/protocol.js';
import type { ReconcilerProtocol } from './reconciler/protocol.js';
import type { WebhookStoreProtocol } from './webhook-store/protocol.js';

/**
 * What every actor may ask the supervisor (the main thread, which serves it): declared with the kinds, below the
 * supervisor that imports them, since every actor has a channel to it.
 */
export interface SupervisorProtocol {
  health(): Promise<HealthReport>;
  /** GET /readyz: whether Elasticsearch, the directory and each SMB backend answer (results kept a few seconds). */
  readiness(): Promise<ReadinessReport>;
  /** GET /metrics: the supervisor's and every actor's metrics, merged into Prometheus text. */
  metrics(): Promise<string>;
  /** HTTP Negotiate: records an authenticator an http-front accepted, or says it was presented before (the service's one replay cache). */
  admitAuthenticator(client: string, ctime: Date, cusec: number, now: Date): Promise<ReplayVerdict>;
}

interface ActorProtocols {
  'http-front': HttpFrontProtocol;
  'dedupe': DedupeProtocol;
  'webhook-store': WebhookStoreProtocol;
  'ldap-resolver': LdapResolverProtocol;
  'reconciler': ReconcilerProtocol;
  'dav-state': DavStateProtocol;
}

export type ActorKind = keyof ActorProtocols;

/** Pairs of actor kinds that get a channel between every instance of each; every actor also has one to the supervisor. */
export const ACTOR_LINKS = [
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
] as const satisfies ReadonlyArray<readonly [ActorKind, ActorKind]>;

type ActorLink = (typeof ACTOR_LINKS)[number];

/** The kinds that share a link with `K`, on either side. */
type LinkedTo<K extends ActorKind> = ActorLink extends infer L
  ? L extends readonly [infer A, infer B] ? (A extends K ? B : never) | (B extends K ? A : never) : never
  : never;

/** Whom an actor of kind `K` can call: the kinds linked to its own (by kind or instance name, `http-front#2`), and the supervisor. */
export type PeersOf<K extends ActorKind> = Pick<ActorProtocols, LinkedTo<K> & ActorKind> & { supervisor: SupervisorProtocol };

/** What an actor of kind `K` serves: its protocol, and its metrics for the supervisor. */
type ServedBy<K extends ActorKind> = ActorProtocols[K] & MetricsSource;

/** The context of an actor of kind `K` (src/runtime/actor.ts): the service's config, its peers, what it serves. */
export type ActorContextOf<K extends ActorKind> = ActorContext<Config, PeersOf<K>, ServedBy<K>>;

/** What every thread of the reconciler's pools (smb-reader, indexer) is started with, as workerData. */
export interface PoolWorkerData {
  config: Config;
  secrets: ServiceSecrets;
}
