// Where the dav-state actor keeps the lock table: in its own memory (one proxy), or in the cluster the proxies
// share (ClusterLocks, cluster.shared_state: elasticsearch). Either way a method reads or changes the table as one
// step; what a lock means stays LockTable's.
import type { LockTable } from './locks.js';

export interface LockStore {
  /** Active locks as last seen (for /healthz and metrics). */
  readonly size: number;
  /** Runs `use` on the table as it is now. */
  read<T>(use: (table: LockTable) => T): Promise<T>;
  /**
   * Runs `use` on the table as it is now and keeps what it changed, durably, before it resolves. `use` may run more
   * than once (another proxy changed the table meanwhile), so it changes nothing but the table.
   */
  change<T>(use: (table: LockTable) => T): Promise<T>;
}

/** The table in this thread's memory: one proxy's locks, lost with the process (a lock is at most 8 h anyway). */
export class LocalLocks implements LockStore {
  constructor(private readonly table: LockTable) {}

  get size(): number {
    return this.table.size;
  }

  async read<T>(use: (table: LockTable) => T): Promise<T> {
    return use(this.table);
  }

  async change<T>(use: (table: LockTable) => T): Promise<T> {
    return use(this.table);
  }
}
