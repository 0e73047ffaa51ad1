// What actors may ask the supervisor, declared once for both ends.
import type { ReplayVerdict } from '../src/kerberos/replay-cache.js';
import type { ReadinessReport } from '../src/metrics/readiness.js';
import type { HealthReport } from '../src/runtime/health.js';

export interface SupervisorProtocol {
  health(): Promise<HealthReport>;
  /** GET /readyz: whether Elasticsearch, the directory and each SMB backend answer (results kept a few seconds). */
  readiness(): Promise<ReadinessReport>;
  /** GET /metrics: the supervisor's and every actor's metrics, merged into Prometheus text. */
  metrics(): Promise<string>;
  /** HTTP Negotiate: records an authenticator an http-front accepted, or says it was presented before (the service's one replay cache). */
  admitAuthenticator(client: string, ctime: Date, cusec: number, now: Date): Promise<ReplayVerdict>;
}
