import { checkWebhookBody } from './body.js';
import type { AcceptedWebhookEvent } from './dispatch.js';
import { duplicateEventError, WEBHOOK_OK_BODY, type WebhookError } from './errors.js';
import { checkWebhookHeaders, type WebhookIntakeHeaders, type WebhookIntakeOptions } from './intake.js';
import type { WebhookClientLookup } from './registry.js';

export interface WebhookRequest {
  readonly headers: WebhookIntakeHeaders;
  readonly contentType: string | undefined;
  readonly body: ArrayBuffer | Uint8Array | string;
  /** Receive time, milliseconds since the epoch. */
  readonly nowMs: number;
}

export interface WebhookHandlerDeps {
  readonly registry: WebhookClientLookup;
  readonly intake: WebhookIntakeOptions;
  /** The dedupe ring's `checkAndInsert`, possibly in another thread: true if the id is new. */
  readonly isNewEvent: (eventId: string) => boolean | Promise<boolean>;
  /** Processing of an accepted event, e.g. `dispatchWebhookEvent` or a message to an actor. */
  readonly process: (event: AcceptedWebhookEvent) => void | Promise<void>;
}

export type WebhookResponse = { readonly httpStatus: 200; readonly body: typeof WEBHOOK_OK_BODY } | WebhookError;

/**
 * The whole intake of `POST /edu-api/webhook`, framework-free: headers (400/401), then body
 * (415/400), then the dedupe ring (409), then processing, then 200 `{"status":"ok"}`. The ring
 * comes after every other check so that a rejected request never uses up its event id.
 */
export async function handleWebhookRequest(request: WebhookRequest, deps: WebhookHandlerDeps): Promise<WebhookResponse> {
  const accepted = checkWebhookHeaders(request.headers, request.nowMs, deps.registry, deps.intake);
  if (!accepted.ok) return accepted.error;
  const body = checkWebhookBody(request.contentType, request.body);
  if (!body.ok) return body.error;
  if (!(await deps.isNewEvent(accepted.eventId))) return duplicateEventError();
  await deps.process({ client: accepted.client, eventId: accepted.eventId, payload: body.event });
  return { httpStatus: 200, body: WEBHOOK_OK_BODY };
}
