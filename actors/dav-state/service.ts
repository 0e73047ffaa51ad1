// The dav-state actor's handlers: the lock table, the dead-property store,
// per-resource write leases, and the shared counters that let http-fronts
// skip asking when there are no locks or properties at all.
import type { DavStateProtocol } from '../../src/messages/dav-state.js';
import { resourceKey, type DavResource } from '../../src/webdav/dav-path.js';
import type { DeadProperties, PropertyLimit, PropertyPatch } from '../../src/webdav/dead-properties.js';
import { LeaseQueue } from '../../src/webdav/leases.js';
import type { ActiveLock, LockDepth, LockOutcome, LockRequest, LockTable, UnlockOutcome } from '../../src/webdav/locks.js';
import type { ResourceState } from '../../src/webdav/properties.js';
import { HINT_LOCKS, HINT_PROPERTY_RESOURCES, HINT_RETIRED, HINT_SLOTS } from '../../src/webdav/state-hint.js';
import type { WriteGate, WriteGateResult } from '../../src/webdav/write-check.js';

export class DavStateService implements DavStateProtocol {
  private readonly shared = new SharedArrayBuffer(HINT_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly counters = new Int32Array(this.shared);
  private readonly leases: LeaseQueue;

  constructor(private readonly locks: LockTable, private readonly properties: DeadProperties, leaseTimeoutMs: number) {
    this.leases = new LeaseQueue(leaseTimeoutMs);
    this.publish();
  }

  /** Counts for /healthz. */
  stats(): Record<string, number> {
    return { locks: this.locks.size, propertyResources: this.properties.size, propertyBytes: this.properties.bytes, leases: this.leases.size };
  }

  /** Expired locks leave the table; keep the shared count honest. */
  publish(): void {
    Atomics.store(this.counters, HINT_LOCKS, this.locks.size);
    Atomics.store(this.counters, HINT_PROPERTY_RESOURCES, this.properties.size);
  }

  /** This incarnation is going away: fronts must fetch the next one's counters. */
  retire(): void {
    Atomics.store(this.counters, HINT_RETIRED, 1);
  }

  async hint(): Promise<SharedArrayBuffer> {
    return this.shared;
  }

  async writeGate(gate: WriteGate): Promise<WriteGateResult> {
    const leaseId = gate.lease ? await this.leases.acquire(resourceKey(gate.lease)) : undefined;
    const blocker = this.locks.blocker(gate.principal, gate.tokens, gate.targets);
    const lockTokens = gate.ask.map((r) => this.locks.covering(r).map((l) => l.token));
    if (blocker) {
      if (leaseId !== undefined) this.leases.release(leaseId);
      return { blockedBy: blocker.root, lockTokens };
    }
    return { lockTokens, ...(leaseId !== undefined ? { leaseId } : {}) };
  }

  async release(leaseId: number): Promise<void> {
    this.leases.release(leaseId);
  }

  async describe(resources: DavResource[], what: { locks: boolean; properties: boolean }): Promise<(ResourceState | null)[]> {
    return resources.map((r) => {
      const locks = what.locks ? this.locks.covering(r) : [];
      const properties = what.properties ? this.properties.get(r) : [];
      return locks.length + properties.length > 0 ? { locks, properties } : null;
    });
  }

  async patchProperties(resource: DavResource, patches: PropertyPatch[], principal: string, file: string): Promise<PropertyLimit | undefined> {
    return this.changed(this.properties.patch(resource, patches, principal, file));
  }

  async lock(request: LockRequest): Promise<LockOutcome> {
    const outcome = this.locks.lock(request);
    this.publish();
    return outcome;
  }

  async refresh(resource: DavResource, tokens: string[], principal: string, timeoutSeconds: number): Promise<ActiveLock | undefined> {
    return this.locks.refresh(resource, tokens, principal, timeoutSeconds);
  }

  async unlock(resource: DavResource, token: string, principal: string): Promise<UnlockOutcome> {
    const outcome = this.locks.unlock(resource, token, principal);
    this.publish();
    return outcome;
  }

  async removed(resource: DavResource): Promise<void> {
    this.locks.removeAt(resource);
    await this.changed(this.properties.remove(resource));
  }

  async moved(from: DavResource, to: DavResource): Promise<void> {
    this.locks.removeAt(from);
    await this.changed(this.properties.move(from, to));
  }

  async copied(from: DavResource, to: DavResource, depth: LockDepth, principal: string): Promise<PropertyLimit | undefined> {
    return this.changed(this.properties.copy(from, to, depth, principal));
  }

  /** Drops the properties of files gone or replaced behind the proxy's back (DeadProperties.sweep). */
  async sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    return this.changed(this.properties.sweep(identityAt));
  }

  /** Counters change with the in-memory state, before the disk write finishes. */
  private async changed<T>(saved: Promise<T>): Promise<T> {
    this.publish();
    return saved;
  }
}
