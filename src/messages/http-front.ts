// What other actors ask an http-front thread, declared once for both ends.
import type { WebhookClient } from '../webhooks/client.js';

export interface HttpFrontProtocol {
  /** The webhook-store's full client list, replacing this thread's read replica. */
  replaceWebhookClients(clients: readonly WebhookClient[]): Promise<void>;
}
