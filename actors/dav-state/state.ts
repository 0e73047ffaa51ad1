// What the dav-state actor owns: the lock table, the dead-property store, the per-resource write leases, and the
// shared counters that let http-fronts skip asking when there are no locks or properties at all. Its peers reach
// it through DavStateService (service.ts), which serves the protocol and nothing else; the rest is the actor's own.
import type { DavResource } from '../../src/webdav/dav-path.js';
import type { DeadProperties } from '../../src/webdav/dead-properties.js';
import { LeaseQueue } from '../../src/webdav/leases.js';
import type { LockTable } from '../../src/webdav/locks.js';
import { HINT_LOCKS, HINT_PROPERTY_RESOURCES, HINT_RETIRED, HINT_SLOTS } from '../../src/webdav/state-hint.js';

export class DavState {
  /** The counters' memory, handed to every front (DavStateProtocol.hint). */
  readonly shared = new SharedArrayBuffer(HINT_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly counters = new Int32Array(this.shared);
  readonly leases: LeaseQueue;

  constructor(readonly locks: LockTable, readonly properties: DeadProperties, leaseTimeoutMs: number) {
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

  /** Drops the properties of files gone or replaced behind the proxy's back (DeadProperties.sweep). */
  async sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    return this.changed(this.properties.sweep(identityAt));
  }

  /** Counters change with the in-memory state, before the disk write finishes. */
  async changed<T>(saved: Promise<T>): Promise<T> {
    this.publish();
    return saved;
  }
}
