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

/**
 * An error's text as /healthz shows it: the endpoint answers without authentication, so every word with a path
 * separator in it (a folder of the host, a file on a share) becomes '…'. The log keeps the whole text.
 */
export function withoutPaths(text: string): string {
  return text.replace(/[^\s'"`,;()]*[\\/][^\s'"`,;()]*/g, '…');
}
