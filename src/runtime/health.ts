// What GET /healthz reports: every actor the supervisor runs and every pool an actor owns (worker-pool.ts).
import type { ActorDetails } from './control.js';

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
