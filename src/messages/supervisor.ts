// What actors may ask the supervisor, declared once for both ends.
import type { ReadinessReport } from '../metrics/readiness.js';
import type { ActorDetails } from '../runtime/control.js';

export type ActorState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface ActorHealth {
  state: ActorState;
  kind: 'actor' | 'pool';
  restarts: number;
  /** Seconds since the current incarnation became ready. */
  uptimeSeconds?: number;
  lastError?: string;
  details?: ActorDetails;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  actors: Record<string, ActorHealth>;
}

export interface SupervisorProtocol {
  health(): Promise<HealthReport>;
  /** GET /readyz: whether Elasticsearch, the directory and each SMB backend answer (results kept a few seconds). */
  readiness(): Promise<ReadinessReport>;
  /** GET /metrics: the supervisor's and every actor's metrics, merged into Prometheus text. */
  metrics(): Promise<string>;
}
