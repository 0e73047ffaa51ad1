import { randomUUID } from 'node:crypto';
import type { WebhookClient } from './client.js';

/** What the store asks of one http-front: its replica (see replica.ts). */
export interface ReplicaLink {
  /**
   * The webhook-store's full client list at `version`, replacing this thread's read replica; the
   * store vouches for it until `validUntil` (ms since the epoch).
   */
  replaceWebhookClients(version: string, clients: readonly WebhookClient[], validUntil: number): Promise<void>;
  /** The store's list is still `version`, vouched for until `validUntil`; false if this thread holds another. */
  renewWebhookClients(version: string, validUntil: number): Promise<boolean>;
}

/** `Front`: how the fronts are named (their actor instance names in the service). */
interface ClientListReplicationOptions<Front extends string = string> {
  /** The current client list (the registry's). */
  readonly clients: () => readonly WebhookClient[];
  /** How the store reaches a front; a call to a front that is down rejects. */
  readonly link: (front: Front) => ReplicaLink;
  /** Whether the front's thread is connected; a thread that is gone can accept nothing, and its successor starts empty. */
  readonly isConnected: (front: Front) => boolean;
  /** `webhooks.replica_lease` in ms: how long a front trusts a copy the store has not confirmed since. */
  readonly leaseMs: number;
  /** Told once per streak of failures, when a connected front did not take the list or a renewal. */
  readonly onUnconfirmed?: (front: Front, err: unknown) => void;
  /** Milliseconds since the epoch, the clock of the leases; injectable for tests. */
  readonly now?: () => number;
}

/** What the store knows of one front. */
interface FrontSync {
  /** The list number this front confirmed holding, if any. */
  confirmed: number | undefined;
  /** The latest lease end sent to it (recorded before sending: the front may apply it any time after). */
  leaseEnd: number;
  /** The latest lease end sent with a list older than the current one: after it the front refuses old keys. */
  staleLeaseEnd: number;
  running: boolean;
  again: boolean;
  failures: number;
  timer: NodeJS.Timeout | undefined;
}

/** First retry after a failed push; doubled per failure up to a third of the lease. */
const FIRST_RETRY_MS = 50;

/**
 * Keeps every http-front's replica of the webhook clients current, and lets a change wait until no
 * front can accept a key the change removed. Each front has its own loop: the full list when the
 * front has not confirmed the current one (retried with back-off until it does), else a renewal of
 * its lease every third of the lease. Every message carries the list's version and the moment until
 * which the store vouches for it, so a front that stops hearing from the store (stuck, its port
 * broken, the store down) refuses keys once that moment passes: the store never has to trust that a
 * push it could not confirm was applied.
 */
export class ClientListReplication<Front extends string = string> {
  /** Versions are unique across store restarts: a restarted store's list 1 is not the old one's. */
  private readonly epoch = randomUUID();
  private current = 1;
  private readonly fronts = new Map<Front, FrontSync>();
  private readonly settled = new Set<() => void>();
  private readonly now: () => number;
  private readonly renewMs: number;

  constructor(private readonly options: ClientListReplicationOptions<Front>) {
    this.now = options.now ?? Date.now;
    this.renewMs = Math.max(1, Math.floor(options.leaseMs / 3));
  }

  /** A front (re)connected: its thread holds no list from this store yet; sync it now. */
  connected(front: Front): void {
    const sync = this.fronts.get(front);
    if (sync === undefined) {
      this.fronts.set(front, { confirmed: undefined, leaseEnd: 0, staleLeaseEnd: 0, running: false, again: false, failures: 0, timer: undefined });
    } else {
      sync.confirmed = undefined;
    }
    this.kick(front);
  }

  /**
   * The list changed: pushes it to every front and resolves once each connected front confirmed it
   * or the last lease it holds for an older list has ended (so it refuses every key).
   */
  async changed(): Promise<void> {
    const version = ++this.current;
    for (const [front, sync] of this.fronts) {
      sync.staleLeaseEnd = sync.leaseEnd;
      this.kick(front);
    }
    await this.until(() => [...this.fronts].every(([front, sync]) =>
      !this.options.isConnected(front) || (sync.confirmed ?? 0) >= version || this.now() >= sync.staleLeaseEnd));
  }

  /** Stops every loop (the store is stopping). */
  stop(): void {
    for (const sync of this.fronts.values()) clearTimeout(sync.timer);
    this.fronts.clear();
  }

  /** For /healthz: per front, whether it confirmed the current list. */
  status(): Record<string, 'current' | 'behind'> {
    return Object.fromEntries([...this.fronts].map(([front, sync]) => [front, sync.confirmed === this.current ? 'current' : 'behind']));
  }

  private kick(front: Front): void {
    const sync = this.fronts.get(front);
    if (sync === undefined) return;
    clearTimeout(sync.timer);
    sync.timer = undefined;
    if (sync.running) {
      sync.again = true;
      return;
    }
    void this.step(front, sync);
  }

  /** One message to the front: the list if it lacks the current one, else a renewal. Then schedules the next. */
  private async step(front: Front, sync: FrontSync): Promise<void> {
    sync.running = true;
    sync.again = false;
    const current = this.current;
    const version = `${this.epoch}/${current}`;
    const validUntil = this.now() + this.options.leaseMs;
    sync.leaseEnd = Math.max(sync.leaseEnd, validUntil);
    const link = this.options.link(front);
    let ok = true;
    try {
      if (sync.confirmed !== current) {
        await link.replaceWebhookClients(version, this.options.clients(), validUntil);
        sync.confirmed = current;
      } else if (!(await link.renewWebhookClients(version, validUntil))) {
        sync.confirmed = undefined; // a new thread behind the same name: it gets the list at once
        sync.again = true;
      }
      sync.failures = 0;
    } catch (err) {
      ok = false;
      if (sync.failures++ === 0 && this.options.isConnected(front)) this.options.onUnconfirmed?.(front, err);
    }
    sync.running = false;
    for (const check of this.settled) check();
    if (this.fronts.get(front) !== sync) return; // stopped
    if (sync.again) {
      void this.step(front, sync);
      return;
    }
    if (!ok && !this.options.isConnected(front)) return; // gone: connected() restarts it
    const delay = ok ? this.renewMs : Math.min(this.renewMs, FIRST_RETRY_MS * 2 ** (sync.failures - 1));
    sync.timer = setTimeout(() => this.kick(front), delay);
    sync.timer.unref();
  }

  /** Resolves when `done()` holds, checked after every message and when the earliest pending lease ends. */
  private until(done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        clearTimeout(timer);
        if (done()) {
          this.settled.delete(check);
          resolve();
          return;
        }
        const ends = [...this.fronts.values()].map((s) => s.staleLeaseEnd).filter((end) => end > this.now());
        if (ends.length > 0) timer = setTimeout(check, Math.min(...ends) - this.now());
      };
      this.settled.add(check);
      check();
    });
  }
}
