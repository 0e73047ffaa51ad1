// Per-resource write leases: one holder at a time, the others queue in
// arrival order. A holder that never releases (its http-front died
// mid-request) loses the lease after the timeout, so a key cannot stay
// blocked. The dav-state actor holds them for all http-fronts; a single
// http-front holds its own and saves the hop.

interface Holder {
  key: string;
  timer: NodeJS.Timeout;
}

export class LeaseQueue {
  private nextId = 1;
  private readonly holders = new Map<number, Holder>();
  /** Waiters per key that is held. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly timeoutMs: number) {}

  /** Leases held now. */
  get size(): number {
    return this.holders.size;
  }

  acquire(key: string): Promise<number> {
    const queue = this.waiting.get(key);
    if (queue === undefined) {
      this.waiting.set(key, []);
      return Promise.resolve(this.grant(key));
    }
    return new Promise((resolve) => queue.push(() => resolve(this.grant(key))));
  }

  /** Releasing an unknown or expired lease does nothing. */
  release(id: number): void {
    const holder = this.holders.get(id);
    if (!holder) return;
    clearTimeout(holder.timer);
    this.holders.delete(id);
    const queue = this.waiting.get(holder.key)!;
    const next = queue.shift();
    if (next) next();
    else this.waiting.delete(holder.key);
  }

  private grant(key: string): number {
    const id = this.nextId++;
    const timer = setTimeout(() => this.release(id), this.timeoutMs);
    timer.unref();
    this.holders.set(id, { key, timer });
    return id;
  }
}
