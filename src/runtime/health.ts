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
 * A text as /healthz shows it, or a log line that another module's text goes into: every word with a path separator
 * in it (a folder of the host, a file on a share) becomes '…'. /healthz answers without authentication, and no log
 * line carries a share path.
 */
export function withoutPaths(text: string): string {
  return text.replace(/[^\s'"`,;()]*[\\/][^\s'"`,;()]*/g, '…');
}
