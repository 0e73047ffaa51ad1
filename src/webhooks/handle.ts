import { HttpError } from '../http/http-error.js';
import { checkJsonObjectBody, type JsonObjectBodyResult } from '../http/json-body.js';
import type { AcceptedWebhookEvent } from './dispatch.js';
import { DUPLICATE_EVENT } from './errors.js';
import { checkWebhookHeaders, type WebhookIntakeHeaders, type WebhookIntakeOptions } from './intake.js';
import type { WebhookClientLookup } from './key-index.js';

export interface WebhookRequest {
  readonly headers: WebhookIntakeHeaders & { readonly 'content-type'?: string | undefined };
  /** The buffered body; rejects with an HttpError (413) when it is over the size limit. */
  readonly body: () => Promise<Uint8Array | string>;
  /** Receive time, milliseconds since the epoch. */
  readonly nowMs: number;
}

/** The ring of accepted event ids (the dedupe actor), shared by every HTTP thread. */
export interface AcceptedEventIds {
  /** Whether the id was accepted before. */
  seen(eventId: string): Promise<boolean>;
  /** Atomic check-and-insert: true if the id was new and is now remembered (with the client that sent it). */
  admit(eventId: string, clientId: string): Promise<boolean>;
  /** Drops an admitted id again (its processing failed, so the sender must be able to retry). */
  forget(eventId: string): Promise<void>;
}

export interface WebhookHandlerDeps {
  readonly registry: WebhookClientLookup;
  readonly intake: WebhookIntakeOptions;
  readonly eventIds: AcceptedEventIds;
  /** Processing of an accepted event, e.g. `dispatchWebhookEvent`. */
  readonly process: (event: AcceptedWebhookEvent) => unknown;
}

/**
 * The intake of `POST /edu-api/webhook`, framework-free. Resolves when the event is accepted
 * (answer 200 `{"status":"ok"}`), throws an HttpError otherwise. The answer is the one the
 * spec's order gives: headers (400, 401), then the event id (409), then the body (413, 415,
 * 400). A valid body is checked locally first so that the common case costs one call to the
 * ring (`admit`) instead of two; only a bad body asks `seen` first, so that a duplicate with a
 * bad body still gets 409. An id is remembered only for an accepted event: a rejected body never
 * reaches `admit`, and a failed processing step forgets the id again.
 */
export async function handleWebhookRequest(request: WebhookRequest, deps: WebhookHandlerDeps): Promise<void> {
  const headers = checkWebhookHeaders(request.headers, request.nowMs, deps.registry, deps.intake);
  if (!headers.ok) throw headers.error;
  const { eventId, client } = headers;
  const body = await readBody(request);
  if (!body.ok) {
    if (await deps.eventIds.seen(eventId)) throw DUPLICATE_EVENT;
    throw body.error;
  }
  if (!(await deps.eventIds.admit(eventId, client.id))) throw DUPLICATE_EVENT;
  try {
    await deps.process({ client, eventId, payload: body.object, payloadJson: body.text });
  } catch (err) {
    await deps.eventIds.forget(eventId).catch(() => undefined);
    throw err;
  }
}

async function readBody(request: WebhookRequest): Promise<JsonObjectBodyResult> {
  let bytes: Uint8Array | string;
  try {
    bytes = await request.body();
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, error: err };
    throw err;
  }
  return checkJsonObjectBody(request.headers['content-type'], bytes);
}
