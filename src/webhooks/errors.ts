// Errors of the webhook intake and the webhook APIs. They are HttpErrors
// (src/http/http-error.ts), the one error shape of the service:
// {"status":"error","error":"<code>","message":"<what is wrong>"}.
// Messages describe the problem for the sender and never contain the API key.
import { HttpError } from '../http/http-error.js';
import { ActorUnavailableError } from '../runtime/rpc.js';

/** Check 4 of the intake: the event id was accepted before. Built once (an Error's stack trace is costly). */
export const DUPLICATE_EVENT = new HttpError(409, 'duplicate_event', 'x-webhook-event-id was already processed; use a new id per event, also for retries');

/** Body of the success response (status 200), serialised once. */
export const WEBHOOK_OK_JSON = '{"status":"ok"}';

/**
 * A call to another actor failed because that actor is down or restarting:
 * the request gets 503 (retry later), never a 200 or a 500. Other errors pass through.
 */
export function unavailableAs503(err: unknown): unknown {
  if (!(err instanceof ActorUnavailableError)) return err;
  return new HttpError(503, 'service_unavailable', `${err.actor} is temporarily unavailable; try again shortly`, { 'retry-after': '1' });
}
