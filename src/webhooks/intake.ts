import { type WebhookClient, userAgentMatches } from './client.js';
import { HttpError } from '../http/http-error.js';
import type { WebhookClientLookup } from './key-index.js';

/** The request headers the intake looks at (names lower-case, as HTTP servers hand them over). */
export interface WebhookIntakeHeaders {
  readonly 'x-webhook-key'?: string | undefined;
  readonly 'x-webhook-timestamp'?: string | undefined;
  readonly 'x-webhook-event-id'?: string | undefined;
  readonly 'user-agent'?: string | undefined;
}

export interface WebhookIntakeOptions {
  /** `webhooks.max_timestamp_age` in milliseconds; the spec's limit is 5 minutes. */
  readonly maxTimestampAgeMs: number;
}

const DEFAULT_MAX_TIMESTAMP_AGE_MS = 5 * 60 * 1000;

interface AcceptedWebhookHeaders {
  readonly ok: true;
  readonly client: WebhookClient;
  readonly eventId: string;
  /** Unix time in seconds, as sent. */
  readonly timestamp: number;
  readonly userAgent: string;
}

type WebhookIntakeResult = AcceptedWebhookHeaders | { readonly ok: false; readonly error: HttpError };

const REQUIRED_HEADERS = ['x-webhook-key', 'x-webhook-timestamp', 'x-webhook-event-id'] as const;

/** Timestamps at or above this many seconds are far beyond year 5000: the sender used milliseconds. */
const MILLISECONDS_THRESHOLD = 1e11;

/**
 * Checks 1 to 3 of the webhook intake, in the order of the spec, stopping at the first failure:
 * (1) all three x-webhook headers present and non-empty, else 400;
 * (2) key registered and User-Agent matching that client, else 401;
 * (3) timestamp whole seconds, not in the future, at most `maxTimestampAgeMs` old, else 401.
 * Check 4 (event id not yet processed, else 409) belongs to the dedupe ring and is left to the
 * caller (handleWebhookRequest), which remembers an id only once its event is accepted.
 * `nowMs` is the current time in milliseconds since the epoch.
 */
export function checkWebhookHeaders(
  headers: WebhookIntakeHeaders,
  nowMs: number,
  registry: WebhookClientLookup,
  options: WebhookIntakeOptions = { maxTimestampAgeMs: DEFAULT_MAX_TIMESTAMP_AGE_MS },
): WebhookIntakeResult {
  const key = headers['x-webhook-key']?.trim() ?? '';
  const timestampText = headers['x-webhook-timestamp']?.trim() ?? '';
  const eventId = headers['x-webhook-event-id']?.trim() ?? '';
  if (key === '' || timestampText === '' || eventId === '') {
    const missing = REQUIRED_HEADERS.filter((name) => (headers[name]?.trim() ?? '') === '');
    return fail(400, 'missing_header', `missing required header(s): ${missing.join(', ')}`);
  }
  const userAgent = headers['user-agent']?.trim() ?? '';

  const client = registry.findByKey(key);
  if (client === undefined) {
    return INVALID_KEY;
  }
  if (!userAgentMatches(userAgent, client.user_agent)) {
    return USER_AGENT_MISMATCH;
  }

  if (!/^\d+$/.test(timestampText)) {
    return INVALID_TIMESTAMP;
  }
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor(nowMs / 1000);
  if (timestamp > nowSeconds) {
    return timestamp >= MILLISECONDS_THRESHOLD ? TIMESTAMP_IN_MILLISECONDS : TIMESTAMP_IN_FUTURE;
  }
  if ((nowSeconds - timestamp) * 1000 > options.maxTimestampAgeMs) {
    return fail(
      401,
      'timestamp_expired',
      `x-webhook-timestamp is older than ${Math.floor(options.maxTimestampAgeMs / 1000)} seconds; check the sender's clock`,
    );
  }

  return { ok: true, client, eventId, timestamp, userAgent };
}

function fail(status: 400 | 401, code: string, message: string): WebhookIntakeResult {
  return { ok: false, error: new HttpError(status, code, message) };
}

// The fixed rejections are built once: constructing an Error captures a stack trace, which
// costs more than all the checks together (see bench/webhook).
const INVALID_KEY = fail(401, 'invalid_key', 'x-webhook-key does not belong to a registered webhook client');
const USER_AGENT_MISMATCH = fail(
  401,
  'user_agent_mismatch',
  'User-Agent does not begin with the User-Agent registered for this key (expected it exactly or followed by /<version>)',
);
const INVALID_TIMESTAMP = fail(401, 'invalid_timestamp', 'x-webhook-timestamp must be an integer Unix time in seconds');
const TIMESTAMP_IN_FUTURE = fail(401, 'timestamp_in_future', "x-webhook-timestamp is in the future; check the sender's clock");
const TIMESTAMP_IN_MILLISECONDS = fail(
  401,
  'timestamp_in_future',
  "x-webhook-timestamp is in the future (it looks like milliseconds; seconds are required); check the sender's clock",
);
