// Errors of the webhook intake and the webhook APIs. They are HttpErrors
// (src/http/http-error.ts), the one error shape of the service:
// {"status":"error","error":"<code>","message":"<what is wrong>"}.
// Messages describe the problem for the sender and never contain the API key.
import { HttpError } from '../http/http-error.js';

/** Check 4 of the intake: the event id was accepted before. Built once (an Error's stack trace is costly). */
export const DUPLICATE_EVENT = new HttpError(409, 'duplicate_event', 'x-webhook-event-id was already processed; use a new id per event, also for retries');

/** Body of the success response (status 200), serialised once. */
export const WEBHOOK_OK_JSON = '{"status":"ok"}';
