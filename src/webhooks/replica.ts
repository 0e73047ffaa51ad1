import { HttpError } from '../http/http-error.js';
import type { WebhookClient } from './client.js';
import { ClientKeyIndex, type WebhookClientLookup } from './key-index.js';

/**
 * An HTTP thread's read copy of the webhook clients, so that the key check of every request
 * is a synchronous, timing-safe local lookup. The webhook-store actor owns the registry and
 * replaces this copy as a whole after every change (before the admin call that made the
 * change returns) and whenever the thread (re)connects to it. Until the first copy arrives
 * the thread cannot tell a valid key from an unknown one, so it answers 503, not 401.
 */
export class WebhookClientReplica implements WebhookClientLookup {
  private index: ClientKeyIndex | undefined;

  replace(clients: readonly WebhookClient[]): void {
    this.index = new ClientKeyIndex(clients);
  }

  /** Number of clients, or undefined before the first copy arrived. */
  get size(): number | undefined {
    return this.index?.size;
  }

  findByKey(apiKey: string): WebhookClient | undefined {
    if (this.index === undefined) {
      throw new HttpError(503, 'registry_unavailable', 'the webhook client registry is not loaded yet; try again shortly', {
        'retry-after': '1',
      });
    }
    return this.index.findByKey(apiKey);
  }
}
