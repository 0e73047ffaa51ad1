// What the dav-state actor owns: the lock table, the dead-property store (each in this process or in the cluster
// the proxies share, lock-store.ts and property-store.ts), the per-resource write leases, and the shared counters
// that let http-fronts skip asking when there are no locks or properties at all. Its peers reach
// it through DavStateService (service.ts), which serves the protocol and nothing else; the rest is the actor's own.
import type { DavResource } from '../../src/webdav/dav-path.js';
import { LeaseQueue } from '../../src/webdav/leases.js';
import type { LockStore } from '../../src/webdav/lock-store.js';
import type { PropertyStore } from '../../src/webdav/property-store.js';
import { HINT_LOCKS, HINT_PROPERTY_RESOURCES, HINT_RETIRED, HINT_SLOTS } from '../../src/webdav/state-hint.js';

export class DavState {
  /** The counters' memory, handed to every front (DavStateProtocol.hint). */
  readonly shared = new SharedArrayBuffer(HINT_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly counters = new Int32Array(this.shared);
  readonly leases: LeaseQueue;

  /**
   * `sharedWithOtherProxies`: the stores are the cluster's, where another proxy may take a lock or set a property at
   * any moment, so the counters say "ask" for good.
   */
  constructor(readonly locks: LockStore, readonly properties: PropertyStore, leaseTimeoutMs: number, private readonly sharedWithOtherProxies = false) {
    this.leases = new LeaseQueue(leaseTimeoutMs);
    this.publish();
  }

  /** Counts for /healthz. */
  stats(): Record<string, number> {
    return { locks: this.locks.size, propertyResources: this.properties.size, propertyBytes: this.properties.bytes, leases: this.leases.size };
  }

  /** Expired locks leave the table; keep the shared count honest. */
  publish(): void {
    Atomics.store(this.counters, HINT_LOCKS, this.sharedWithOtherProxies ? 1 : this.locks.size);
    Atomics.store(this.counters, HINT_PROPERTY_RESOURCES, this.sharedWithOtherProxies ? 1 : this.properties.size);
  }

  /** This incarnation is going away: fronts must fetch the next one's counters. */
  retire(): void {
    Atomics.store(this.counters, HINT_RETIRED, 1);
  }

  /** Drops the properties of files gone or replaced behind the proxy's back (PropertyStore.sweep). */
  async sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    return this.changed(this.properties.sweep(identityAt));
  }

  /** Counters change with the in-memory state, before the disk write finishes. */
  async changed<T>(saved: Promise<T>): Promise<T> {
    this.publish();
    return saved;
  }
}
