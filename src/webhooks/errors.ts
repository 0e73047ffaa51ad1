/**
 * The one error shape of the webhook intake: an HTTP status plus the JSON body
 * `{"status":"error","error":"<code>","message":"<what is wrong>"}`.
 * Messages describe the problem for the sender and never contain the API key.
 */
export interface WebhookErrorBody {
  readonly status: 'error';
  readonly error: string;
  readonly message: string;
}

export interface WebhookError {
  readonly httpStatus: 400 | 401 | 409 | 415;
  readonly body: WebhookErrorBody;
}

export function webhookError(httpStatus: WebhookError['httpStatus'], error: string, message: string): WebhookError {
  return { httpStatus, body: { status: 'error', error, message } };
}

/** Check 4 of the intake: the dedupe ring said the event id was already accepted. */
export function duplicateEventError(): WebhookError {
  return webhookError(
    409,
    'duplicate_event',
    'x-webhook-event-id was already processed; use a new id per event, also for retries',
  );
}

/** Body of the success response: status 200 with `{"status":"ok"}`. */
export const WEBHOOK_OK_BODY = Object.freeze({ status: 'ok' as const });
