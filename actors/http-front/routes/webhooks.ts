// POST /edu-api/webhook: the webhook intake. Key checks use this thread's
// replica of the clients; the event id goes to the dedupe actor (one call for
// an accepted event); service-eventhandler events go to the webhook-store.
// Both calls are batched per event-loop turn.
import type { Logger } from 'pino';
import type { Config } from '../../../src/config/index.js';
import type { Router } from '../../../src/http/router.js';
import type { DedupeProtocol } from '../../../src/messages/dedupe.js';
import type { WebhookStoreProtocol } from '../../../src/messages/webhook-store.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { CallBatcher } from '../../../src/webhooks/batch.js';
import { dispatchWebhookEvent, type WebhookDispatchDeps } from '../../../src/webhooks/dispatch.js';
import { WEBHOOK_OK_JSON } from '../../../src/webhooks/errors.js';
import { handleWebhookRequest, type WebhookHandlerDeps } from '../../../src/webhooks/handle.js';
import type { WebhookClientLookup } from '../../../src/webhooks/key-index.js';
import type { NewUserEvent } from '../../../src/webhooks/user-events.js';
import { unavailableAs503 } from './api-calls.js';

export interface WebhookRouteDeps {
  readonly config: Pick<Config, 'http' | 'webhooks'>;
  readonly clients: WebhookClientLookup;
  readonly dedupe: Remote<DedupeProtocol>;
  readonly store: Remote<WebhookStoreProtocol>;
  readonly log: Logger;
}

const OK_HEADERS = { 'content-type': 'application/json' };

export function registerWebhookRoutes(router: Router, deps: WebhookRouteDeps): void {
  // Admissions and cached events of one event-loop turn travel together: one message per burst, not per request.
  const admissions = new CallBatcher((ids: string[]) => deps.dedupe.admitAll(ids));
  const cachedEvents = new CallBatcher(async (events: NewUserEvent[]) => {
    await deps.store.addUserEvents(events);
    return events.map(() => undefined);
  });
  const dispatch: WebhookDispatchDeps = {
    userEvents: { add: (username, event) => cachedEvents.call({ username, event }) },
    logger: deps.log,
    maxUserEventSize: deps.config.webhooks.user_events.max_event_size,
  };
  const intake: WebhookHandlerDeps = {
    registry: deps.clients,
    intake: { maxTimestampAgeMs: deps.config.webhooks.max_timestamp_age },
    eventIds: {
      seen: (id) => deps.dedupe.seen(id),
      admit: (id) => admissions.call(id),
      forget: (id) => deps.dedupe.forget(id),
    },
    process: (event) => dispatchWebhookEvent(event, dispatch),
  };
  router.add('POST', '/edu-api/webhook', async (ex) => {
    try {
      await handleWebhookRequest({ headers: ex.headers, body: () => ex.readBody(), nowMs: Date.now() }, intake);
    } catch (err) {
      throw unavailableAs503(err);
    }
    ex.send(200, WEBHOOK_OK_JSON, OK_HEADERS);
  }, { bodyLimit: deps.config.http.max_body });
}
