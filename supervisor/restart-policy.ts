// One-for-one restart policy: exponential back-off, and a cap on restarts
// within a sliding window after which the supervisor gives up (and exits
// non-zero so that systemd restarts the whole service).

export interface RestartLimits {
  maxRestarts: number;
  windowMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

type RestartDecision = { restart: true; delayMs: number } | { restart: false; reason: string };

export class RestartPolicy {
  private readonly recent: number[] = [];

  constructor(private readonly limits: RestartLimits) {}

  /** Call when the actor died at `now`; says whether and when to restart it. */
  onCrash(now: number): RestartDecision {
    const { maxRestarts, windowMs, backoffInitialMs, backoffMaxMs } = this.limits;
    while (this.recent.length > 0 && this.recent[0]! <= now - windowMs) this.recent.shift();
    if (this.recent.length >= maxRestarts) {
      return { restart: false, reason: `${this.recent.length} restarts within ${windowMs} ms` };
    }
    const delayMs = Math.min(backoffMaxMs, backoffInitialMs * 2 ** this.recent.length);
    this.recent.push(now);
    return { restart: true, delayMs };
  }
}
