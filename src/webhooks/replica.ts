import { HttpError } from '../http/http-error.js';
import type { WebhookClient } from './client.js';
import { ClientKeyIndex, type WebhookClientLookup } from './key-index.js';

/**
 * An HTTP thread's read copy of the webhook clients, so that the key check of every request
 * is a synchronous, timing-safe local lookup. The webhook-store actor owns the registry and
 * replaces this copy as a whole after every change and whenever the thread (re)connects to it
 * (see replication.ts). The copy is trusted only under a lease: every copy and every renewal
 * carries the moment until which the store vouches for it, and a renewal naming another version
 * ends it at once. A thread that has no copy yet, or whose lease ran out because the store could
 * not reach it (or the store is down), cannot tell a valid key from a deleted one, so it answers
 * 503, not 401 and never 200.
 */
export class WebhookClientReplica implements WebhookClientLookup {
  private index: ClientKeyIndex | undefined;
  private version: string | undefined;
  private validUntil = 0;

  /** `now`: milliseconds since the epoch, the clock the store's leases are written in. */
  constructor(private readonly now: () => number = Date.now) {}

  /** The store's list at `version`, vouched for until `validUntil` (ms since the epoch). */
  replace(version: string, clients: readonly WebhookClient[], validUntil: number): void {
    this.index = new ClientKeyIndex(clients);
    this.version = version;
    this.validUntil = validUntil;
  }

  /**
   * The store's list is at `version`: extends the lease if this copy is that version, else ends it
   * at once (a newer list exists; the store sends it next). Answers whether this copy is current.
   */
  renew(version: string, validUntil: number): boolean {
    if (version !== this.version) {
      this.validUntil = 0;
      return false;
    }
    this.validUntil = Math.max(this.validUntil, validUntil);
    return true;
  }

  /** Number of clients, or undefined before the first copy arrived. */
  get size(): number | undefined {
    return this.index?.size;
  }

  /** For /healthz: whether keys are checked now. */
  get state(): 'not loaded' | 'current' | 'unconfirmed' {
    if (this.index === undefined) return 'not loaded';
    return this.now() < this.validUntil ? 'current' : 'unconfirmed';
  }

  findByKey(apiKey: string): WebhookClient | undefined {
    if (this.index === undefined) {
      throw unavailable('the webhook client registry is not loaded yet; try again shortly');
    }
    if (this.now() >= this.validUntil) {
      throw unavailable('the webhook-store has not confirmed this thread\'s copy of the webhook clients as current; try again shortly');
    }
    return this.index.findByKey(apiKey);
  }
}

function unavailable(message: string): HttpError {
  return new HttpError(503, 'registry_unavailable', message, { 'retry-after': '1' });
}
