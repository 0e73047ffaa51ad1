import type { Logger } from '../common/logger.js';
import { HttpError } from '../http/http-error.js';
import { type WebhookClient, userAgentProduct } from './client.js';
import { USER_EVENTS_DEFAULTS, type UserEvent, userEventSize } from './user-events.js';

/** An event that passed all intake checks, including the dedupe ring. */
export interface AcceptedWebhookEvent {
  readonly client: WebhookClient;
  readonly eventId: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The body as sent, whose parse is `payload`: a cached event keeps this text, never serialised again. */
  readonly payloadJson: string;
}

/** Where `service-eventhandler` events go: the UserEventsCache, or a call to the actor that owns it. */
interface UserEventSink {
  add(username: string, event: Omit<UserEvent, 'receivedAt'>): void | Promise<void>;
}

export interface WebhookDispatchDeps {
  readonly userEvents: UserEventSink;
  readonly logger: Logger;
  /** `webhooks.user_events.max_event_size`: a larger service-eventhandler event is refused with 413. */
  readonly maxUserEventSize?: number;
}

type DispatchOutcome =
  | 'cached' // service-eventhandler event stored for its user
  | 'discarded' // service-eventhandler event without a usable username
  | 'logged' // platform-api event (the spec keeps their content evaluation inactive)
  | 'ignored'; // registered but without processing

/**
 * Processing of an accepted event by the product part of the client's registered User-Agent
 * (spec 4.3). Resolves once the event is stored where it goes (the caller answers 200 then);
 * rejects when the user-event sink fails or with a 413 for a user event too large to cache. Log lines carry the client id and event id but
 * never the API key or the payload.
 */
export async function dispatchWebhookEvent(event: AcceptedWebhookEvent, deps: WebhookDispatchDeps): Promise<DispatchOutcome> {
  const service = userAgentProduct(event.client.user_agent);
  const fields = { webhook_client: event.client.id, user_agent: service, event_id: event.eventId };
  switch (service) {
    case 'service-eventhandler': {
      const username = event.payload['username'];
      if (typeof username !== 'string' || username.trim() === '') {
        const reason = username === undefined ? 'no username field' : 'username is not a non-empty string';
        deps.logger.info({ ...fields, reason }, 'webhook event discarded');
        return 'discarded';
      }
      const size = userEventSize(event.payloadJson);
      const limit = deps.maxUserEventSize ?? USER_EVENTS_DEFAULTS.maxEventSize;
      if (size > limit) {
        throw new HttpError(413, 'event_too_large',
          `the event is ${size} bytes; a service-eventhandler event may have at most ${limit} (webhooks.user_events.max_event_size)`);
      }
      await deps.userEvents.add(username.trim(), {
        eventId: event.eventId,
        clientId: event.client.id,
        payloadJson: event.payloadJson,
      });
      return 'cached';
    }
    case 'platform-api':
      deps.logger.info(fields, 'platform-api webhook event received');
      return 'logged';
    default:
      deps.logger.warn(fields, 'webhook event from a service without processing; accepted but not processed');
      return 'ignored';
  }
}
