export const DEFAULT_DEDUPE_SIZE = 100;

/**
 * The last N accepted webhook event ids (spec: 100, in memory only, so a restart forgets them).
 * A Set answers "seen?" in O(1); a fixed array used as a ring remembers the insertion order so
 * that the (N+1)-th new id pushes the oldest one out.
 */
export class DedupeRing {
  private readonly seen = new Set<string>();
  private readonly ring: (string | undefined)[];
  private next = 0;

  constructor(readonly capacity: number = DEFAULT_DEDUPE_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`dedupe ring capacity must be a positive integer, got ${capacity}`);
    }
    this.ring = new Array<string | undefined>(capacity);
  }

  /** True if the id is new (and is now remembered); false if it was accepted before. */
  checkAndInsert(id: string): boolean {
    if (this.seen.has(id)) return false;
    const evicted = this.ring[this.next];
    if (evicted !== undefined) this.seen.delete(evicted);
    this.ring[this.next] = id;
    this.seen.add(id);
    this.next = (this.next + 1) % this.capacity;
    return true;
  }

  /**
   * Forgets an id (its event could not be processed after all). Its slot is emptied too, so
   * that a later eviction of that slot cannot drop the id if it is admitted again meanwhile.
   */
  forget(id: string): void {
    if (!this.seen.delete(id)) return;
    const slot = this.ring.indexOf(id);
    if (slot !== -1) this.ring[slot] = undefined;
  }

  has(id: string): boolean {
    return this.seen.has(id);
  }

  get size(): number {
    return this.seen.size;
  }
}
