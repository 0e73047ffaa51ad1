// What the http-fronts ask the dav-state actor, declared once for both ends.
// One thread owns the WebDAV lock table and the dead properties, so every
// http-front thread sees the same locks and properties; the properties are
// kept in a file under storage.data_dir and survive restarts, locks do not.
import type { XmlElement } from '../webdav/xml.js';

/** A resource as the lock table and property store key it: share + share-relative path. */
export interface DavResource {
  share: string;
  /** Share-relative, `/`-separated, '' for the share root. */
  path: string;
}

export type LockScope = 'exclusive' | 'shared';
export type LockDepth = '0' | 'infinity';

export interface ActiveLock {
  /** `urn:uuid:...` */
  token: string;
  root: DavResource;
  scope: LockScope;
  depth: LockDepth;
  /** The DAV:owner element the client sent, if any. */
  owner?: XmlElement;
  /** Who took the lock (lower-case `domain\user`); only they may use its token. */
  principal: string;
  /** Seconds until the lock expires. */
  timeoutSeconds: number;
}

export interface LockRequest {
  resource: DavResource;
  scope: LockScope;
  depth: LockDepth;
  owner?: XmlElement;
  principal: string;
  timeoutSeconds: number;
}

/** `limit`: the principal holds webdav.locks.max_per_user locks already. */
export type LockOutcome = { granted: ActiveLock } | { conflict: DavResource } | { limit: 'max_per_user' };

export type UnlockOutcome = 'unlocked' | 'no-such-lock' | 'not-owner';

/** A resource a write changes; `infinity` when it changes everything below too (DELETE, MOVE of a collection). */
export interface WriteTarget {
  resource: DavResource;
  depth: LockDepth;
}

export interface WriteGate {
  principal: string;
  targets: WriteTarget[];
  /** Lock tokens the request submits (in its If header). */
  tokens: string[];
  /** Resources whose covering lock tokens the If header evaluation needs. */
  ask: DavResource[];
  /**
   * Serialize with other gated writes of this resource: the answer comes only
   * once no other holder of the lease is left, and the caller must `release`.
   */
  lease?: DavResource;
}

export interface WriteGateResult {
  /** The root of a lock whose token the request did not submit (answer 423). */
  blockedBy?: DavResource;
  /** Per `ask` entry, the tokens of the locks covering it. */
  lockTokens: string[][];
  /** Present when a lease was asked for and granted. */
  leaseId?: number;
}

/** What PROPFIND needs beyond SMB: active locks and dead properties. */
export interface ResourceState {
  locks: ActiveLock[];
  properties: XmlElement[];
}

export type PropertyPatch = { set: XmlElement } | { remove: { ns: string; name: string } };

/** The key under webdav.dead_properties whose bound a change would pass. */
export type PropertyLimit = 'max_per_resource' | 'max_resource_size' | 'max_total_size';

/**
 * Layout of the shared counters (an Int32Array over the SharedArrayBuffer
 * `hint()` returns): they let an http-front skip asking when there is
 * nothing to ask about.
 */
export const HINT_LOCKS = 0;
export const HINT_PROPERTY_RESOURCES = 1;
/** Set to 1 when the dav-state incarnation that owns the buffer stops or dies. */
export const HINT_RETIRED = 2;
export const HINT_SLOTS = 3;

export interface DavStateProtocol {
  hint(): Promise<SharedArrayBuffer>;
  /** Lock check of a write (and optionally its per-resource lease). */
  writeGate(gate: WriteGate): Promise<WriteGateResult>;
  release(leaseId: number): Promise<void>;
  /** Locks and dead properties of each resource; null where there are none. */
  describe(resources: DavResource[], what: { locks: boolean; properties: boolean }): Promise<(ResourceState | null)[]>;
  /** Applies all patches in order, or none (then it names the limit they would pass); stored durably before it resolves. */
  patchProperties(resource: DavResource, patches: PropertyPatch[]): Promise<PropertyLimit | undefined>;
  lock(request: LockRequest): Promise<LockOutcome>;
  /** Refreshes the lock among `tokens` that covers `resource`; undefined when none does. */
  refresh(resource: DavResource, tokens: string[], principal: string, timeoutSeconds: number): Promise<ActiveLock | undefined>;
  unlock(resource: DavResource, token: string, principal: string): Promise<UnlockOutcome>;
  /** The resource (and everything below) is gone: drop its properties and locks. */
  removed(resource: DavResource): Promise<void>;
  /** Properties follow a MOVE; locks on the source are dropped. */
  moved(from: DavResource, to: DavResource): Promise<void>;
  /** Properties follow a COPY (the resource only, or everything below with depth infinity), unless that passes max_total_size. */
  copied(from: DavResource, to: DavResource, depth: LockDepth): Promise<PropertyLimit | undefined>;
}
