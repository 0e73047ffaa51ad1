// What the HTTP fronts ask the webhook-store actor, declared once for both ends.
// The store owns the webhook client registry (durable file), the cached user
// events and the logins (with their sessions) of the users who may manage or
// read them, so that a session is valid on every HTTP thread.
import type { AdminAuthResult } from '../../src/auth/admin.js';
import type { MaskedWebhookClient, WebhookClient } from '../../src/webhooks/client.js';
import type { DeleteResult } from '../../src/webhooks/registry.js';
import type { UserEvent, UserEventSink } from '../../src/webhooks/user-events.js';

export interface WebhookStoreProtocol extends UserEventSink {
  /** A global admin (member of `admin.groups`), from an `Authorization` header sent from `clientAddress`. */
  authenticateAdmin(authorization: string | undefined, clientAddress: string): Promise<AdminAuthResult>;
  /**
   * A caller of the user-events API for `username`'s events: a global admin, `admin.user` or the
   * indexer service account, or the user named by `username` themselves.
   */
  authenticateEventReader(authorization: string | undefined, username: string, clientAddress: string): Promise<AdminAuthResult>;

  /** Creates a client for a supported User-Agent; every front knows its key when this resolves. */
  createClient(userAgent: string): Promise<MaskedWebhookClient>;
  listClients(userAgent: string | undefined): Promise<MaskedWebhookClient[]>;
  /** One client with its key in clear, or undefined for an unknown id. */
  revealClient(id: string): Promise<WebhookClient | undefined>;
  /** Deletes clients; every front rejects their keys when this resolves. */
  deleteClients(ids: string[]): Promise<DeleteResult>;

  /** The user's unexpired events, newest first. */
  userEvents(username: string): Promise<UserEvent[]>;
}
