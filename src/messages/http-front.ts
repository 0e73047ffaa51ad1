// What other actors ask an http-front thread, declared once for both ends.
import type { WebhookClient } from '../webhooks/client.js';

export interface HttpFrontProtocol {
  /**
   * The webhook-store's full client list at `version`, replacing this thread's read replica; the
   * store vouches for it until `validUntil` (ms since the epoch). See src/webhooks/replication.ts.
   */
  replaceWebhookClients(version: string, clients: readonly WebhookClient[], validUntil: number): Promise<void>;
  /** The store's list is still `version`, vouched for until `validUntil`; false if this thread holds another. */
  renewWebhookClients(version: string, validUntil: number): Promise<boolean>;
}
