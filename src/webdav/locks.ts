// The WebDAV lock table (RFC 4918 §6, §7): exclusive and shared write locks
// of depth 0 or infinity, with timeouts. Pure logic; the dav-state actor owns
// the one instance every http-front asks.
import { randomUUID } from 'node:crypto';
import { isWithin, type DavResource } from './dav-path.js';
import type { XmlElement } from './xml.js';

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
  /** Who took the lock: the SID of their account (DavCall.principal), whichever spelling they logged on with; only they may use its token. */
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

/** Lock timeouts: what a client gets when it asks for none, and the most it can get (also for Infinite). */
const DEFAULT_LOCK_SECONDS = 3600;
export const MAX_LOCK_SECONDS = 8 * 3600;

/** A lock as kept: when it expires (ms since the epoch) instead of the seconds left. */
export interface StoredLock extends Omit<ActiveLock, 'timeoutSeconds'> {
  expiresAt: number;
}

interface LockTableOptions {
  /** Active locks one principal may hold (webdav.locks.max_per_user). */
  maxPerUser?: number;
  now?: () => number;
}

export class LockTable {
  private readonly locks = new Map<string, StoredLock>();
  private readonly maxPerUser: number;
  private readonly now: () => number;
  private changes = 0;

  constructor(options: LockTableOptions = {}, stored: readonly StoredLock[] = []) {
    this.maxPerUser = options.maxPerUser ?? Infinity;
    this.now = options.now ?? Date.now;
    for (const l of stored) this.locks.set(l.token, { ...l });
  }

  /** Grows with every lock taken, refreshed or dropped (not with expiry): whether a table read elsewhere must be written back. */
  get revision(): number {
    return this.changes;
  }

  /** The active locks as kept, for a table that lives elsewhere (LockTable's second argument takes them back). */
  snapshot(): StoredLock[] {
    return this.active().map((l) => ({ ...l }));
  }

  /** Active locks (expired ones are dropped first). */
  get size(): number {
    this.prune();
    return this.locks.size;
  }

  /** Locks whose scope includes the resource: on it, or depth infinity on an ancestor. */
  covering(resource: DavResource): ActiveLock[] {
    return this.active().filter((l) => covers(l, resource)).map((l) => this.view(l));
  }

  lock(request: LockRequest): LockOutcome {
    const exclusive = request.scope === 'exclusive';
    const conflict = this.active().find((l) =>
      (exclusive || l.scope === 'exclusive') && (covers(l, request.resource) || (request.depth === 'infinity' && below(l.root, request.resource))));
    if (conflict) return { conflict: conflict.root };
    if (this.active().filter((l) => l.principal === request.principal).length >= this.maxPerUser) return { limit: 'max_per_user' };
    const lock: StoredLock = {
      token: `urn:uuid:${randomUUID()}`,
      root: request.resource,
      scope: request.scope,
      depth: request.depth,
      ...(request.owner ? { owner: request.owner } : {}),
      principal: request.principal,
      expiresAt: this.now() + clampTimeout(request.timeoutSeconds) * 1000,
    };
    this.locks.set(lock.token, lock);
    this.changes++;
    return { granted: this.view(lock) };
  }

  refresh(resource: DavResource, tokens: readonly string[], principal: string, timeoutSeconds: number): ActiveLock | undefined {
    const lock = tokens.map((t) => this.get(t)).find((l) => l !== undefined && l.principal === principal && covers(l, resource));
    if (!lock) return undefined;
    lock.expiresAt = this.now() + clampTimeout(timeoutSeconds) * 1000;
    this.changes++;
    return this.view(lock);
  }

  unlock(resource: DavResource, token: string, principal: string): UnlockOutcome {
    const lock = this.get(token);
    if (!lock || !covers(lock, resource)) return 'no-such-lock';
    if (lock.principal !== principal) return 'not-owner';
    this.locks.delete(token);
    this.changes++;
    return 'unlocked';
  }

  /**
   * The first lock that stops a write to `targets`: a lock covering a target
   * (or, for depth infinity, below it) whose token the principal did not submit.
   */
  blocker(principal: string, tokens: readonly string[], targets: readonly WriteTarget[]): ActiveLock | undefined {
    const submitted = new Set(tokens);
    const lock = this.active().find((l) =>
      (!submitted.has(l.token) || l.principal !== principal)
      && targets.some((t) => covers(l, t.resource) || (t.depth === 'infinity' && below(l.root, t.resource))));
    return lock && this.view(lock);
  }

  /** Drops the locks on the resource and below it (it was deleted or moved away). */
  removeAt(resource: DavResource): void {
    for (const [token, l] of this.locks) {
      if (sameShare(l.root, resource) && isWithin(l.root.path, resource.path)) {
        this.locks.delete(token);
        this.changes++;
      }
    }
  }

  private get(token: string): StoredLock | undefined {
    const lock = this.locks.get(token);
    return lock && lock.expiresAt > this.now() ? lock : undefined;
  }

  private active(): StoredLock[] {
    this.prune();
    return [...this.locks.values()];
  }

  private prune(): void {
    const now = this.now();
    for (const [token, l] of this.locks) if (l.expiresAt <= now) this.locks.delete(token);
  }

  private view(l: StoredLock): ActiveLock {
    const { expiresAt, ...rest } = l;
    return { ...rest, timeoutSeconds: Math.max(0, Math.ceil((expiresAt - this.now()) / 1000)) };
  }
}

function sameShare(a: DavResource, b: DavResource): boolean {
  return a.share.toLowerCase() === b.share.toLowerCase();
}

function covers(lock: { root: DavResource; depth: LockDepth }, resource: DavResource): boolean {
  if (!sameShare(lock.root, resource)) return false;
  if (lock.root.path.toLowerCase() === resource.path.toLowerCase()) return true;
  return lock.depth === 'infinity' && isWithin(resource.path, lock.root.path);
}

/** `inner` lies strictly below `outer`. */
function below(inner: DavResource, outer: DavResource): boolean {
  return sameShare(inner, outer) && inner.path.toLowerCase() !== outer.path.toLowerCase() && isWithin(inner.path, outer.path);
}

function clampTimeout(seconds: number): number {
  if (seconds === Infinity) return MAX_LOCK_SECONDS;
  if (!(seconds > 0)) return DEFAULT_LOCK_SECONDS;
  return Math.min(Math.floor(seconds), MAX_LOCK_SECONDS);
}

/** What the WebDAV methods ask of the thread that keeps the lock table (the dav-state actor serves it). */
export interface LockKeeper {
  lock(request: LockRequest): Promise<LockOutcome>;
  /** Refreshes the lock among `tokens` that covers `resource`; undefined when none does. */
  refresh(resource: DavResource, tokens: string[], principal: string, timeoutSeconds: number): Promise<ActiveLock | undefined>;
  unlock(resource: DavResource, token: string, principal: string): Promise<UnlockOutcome>;
}
