/**
 * How long an indexer waits before it sends again what Elasticsearch pushed back (429): waits that double from
 * `firstMs` up to `maxMs`, each with jitter (between half and all of that), so that the indexer threads that were
 * pushed back together do not come back together; and a bound on all the waits of one batch, after which the
 * pushed-back operations are given up as any refused operation is (the next pass writes them again).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface BackOffPolicy {
  /** The first wait, at most. */
  firstMs: number;
  /** No single wait is longer. */
  maxMs: number;
  /** All the waits of one batch together are no longer. */
  totalMs: number;
}

/**
 * A batch's waits: 0.25 s at first, at most 8 s each, 60 s in all. A write queue that stays full for a minute is
 * no burst any more but an overloaded cluster, which the operator should see as refused pages rather than as a
 * pass that never ends; and a batch that waits holds its pages in memory and its place among the batches in flight.
 */
export const BULK_BACK_OFF: BackOffPolicy = { firstMs: 250, maxMs: 8_000, totalMs: 60_000 };

export class BackOff {
  private waits = 0;
  private waitedMs = 0;

  /** `random` and `wait` are Math.random and a timer but in unit tests. */
  constructor(
    private readonly policy: BackOffPolicy = BULK_BACK_OFF,
    private readonly random: () => number = Math.random,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /** Waits the next while and returns true; returns false at once when the bound is used up. */
  async next(): Promise<boolean> {
    const left = this.policy.totalMs - this.waitedMs;
    if (left <= 0) return false;
    const ceiling = Math.min(this.policy.maxMs, this.policy.firstMs * 2 ** this.waits);
    const ms = Math.min(left, ceiling / 2 + (this.random() * ceiling) / 2);
    this.waits++;
    this.waitedMs += ms;
    await this.wait(ms);
    return true;
  }

  /** The waits so far and their sum. */
  get spent(): { waits: number; ms: number } {
    return { waits: this.waits, ms: this.waitedMs };
  }
}
