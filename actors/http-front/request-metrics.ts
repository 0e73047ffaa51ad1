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

type DurationSeries = ReturnType<Histogram<'route' | 'method' | 'status'>['labels']>;
type WebhookSeries = ReturnType<Counter<'status' | 'outcome'>['labels']>;

export class HttpRequestMetrics {
  private readonly duration: Histogram<'route' | 'method' | 'status'>;
  private readonly webhooks: Counter<'status' | 'outcome'>;
  private readonly durations = new Map<string, Map<string, Map<number, DurationSeries>>>();
  private readonly webhookCounters = new Map<string, WebhookSeries>();

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
    const method = KNOWN_METHODS.has(request.method) ? request.method : 'OTHER';
    this.durationOf(request.route, method, request.status).observe(request.durationMs / 1000);
    if (request.route === WEBHOOK_ROUTE && request.method === 'POST') {
      this.webhookCounterOf(request.status, request.outcome === 'ok' ? 'accepted' : request.outcome).inc();
    }
  }

  /** The series of one route, method and status, looked up once (prom-client hashes the labels on every observe). */
  private durationOf(route: string, method: string, status: number): DurationSeries {
    const byMethod = this.durations.get(route) ?? new Map<string, Map<number, DurationSeries>>();
    this.durations.set(route, byMethod);
    const byStatus = byMethod.get(method) ?? new Map<number, DurationSeries>();
    byMethod.set(method, byStatus);
    let series = byStatus.get(status);
    if (series === undefined) byStatus.set(status, series = this.duration.labels(route, method, String(status)));
    return series;
  }

  private webhookCounterOf(status: number, outcome: string): WebhookSeries {
    const key = `${status} ${outcome}`;
    let series = this.webhookCounters.get(key);
    if (series === undefined) this.webhookCounters.set(key, series = this.webhooks.labels(String(status), outcome));
    return series;
  }
}
