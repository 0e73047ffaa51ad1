// What an http-front records about each finished request: the request id it
// is known by, one structured log line, and the request metrics (latency
// per route pattern and status; webhook intake outcomes per check).
import { randomUUID } from 'node:crypto';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface FinishedRequest {
  requestId: string;
  method: string;
  /** The route pattern (`/edu-api/users/:username/events`), `unmatched` for 404/405 of the router. */
  route: string;
  /** 0 when the client went away before an answer was sent. */
  status: number;
  durationMs: number;
  /** `ok`, the error code of the answer (`invalid_key`, `duplicate_event`, ...), `error` or `aborted`. */
  outcome: string;
}

export const UNMATCHED_ROUTE = 'unmatched';
/** The webhook intake's route, whose outcomes are counted per check. */
const WEBHOOK_ROUTE = '/edu-api/webhook';

/** An incoming X-Request-Id is kept when it is a plain token (no spaces, quotes or control characters). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._~:@+=/-]{1,128}$/;

/** The id a request is logged and answered with: the caller's, when sane, else a new UUID. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** What the outcome of an answer is when the route sent it without an error code. */
export function plainOutcome(status: number): string {
  if (status === 0) return 'aborted';
  return status < 400 ? 'ok' : 'error';
}

/** Methods with a series of their own; any other (the client chooses it) is counted as OTHER, so series stay bounded. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK']);

/** Latency buckets in seconds: the intake answers in well under a millisecond, WebDAV may take seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class HttpRequestMetrics {
  private readonly duration: Histogram<'route' | 'method' | 'status'>;
  private readonly webhooks: Counter<'status' | 'outcome'>;

  constructor(registry: Registry) {
    this.duration = new Histogram({
      name: 'fileproxy_http_request_duration_seconds',
      help: 'Time from request to the end of the answer, by route pattern, method and status (_count: requests)',
      labelNames: ['route', 'method', 'status'],
      buckets: BUCKETS,
      registers: [registry],
    });
    this.webhooks = new Counter({
      name: 'fileproxy_webhook_requests_total',
      help: 'Webhook intake answers by status and outcome (accepted, or the check that refused: missing_header, invalid_key, user_agent_mismatch, timestamp_*, duplicate_event, unsupported_media_type, body_too_large, ...)',
      labelNames: ['status', 'outcome'],
      registers: [registry],
    });
  }

  record(request: FinishedRequest): void {
    const status = String(request.status);
    const method = KNOWN_METHODS.has(request.method) ? request.method : 'OTHER';
    this.duration.observe({ route: request.route, method, status }, request.durationMs / 1000);
    if (request.route === WEBHOOK_ROUTE && request.method === 'POST') {
      this.webhooks.inc({ status, outcome: request.outcome === 'ok' ? 'accepted' : request.outcome });
    }
  }
}
