// GET /readyz: whether the dependencies the service needs answer. Each probe's
// result is kept for a few seconds, so that frequent readiness probes (and
// several http-fronts) do not hammer the directory or the file servers; calls
// that arrive while a probe runs share it.

export interface ProbeResult {
  up: boolean;
  /** What was checked and what came back, for an operator (never a secret). */
  detail: string;
}

export interface DependencyProbe {
  /** `elasticsearch`, `ldap`, `smb://host:port`. */
  name: string;
  /** Off by configuration: reported, but not needed for readiness. */
  disabled?: string;
  run(): Promise<ProbeResult>;
}

interface DependencyCheck {
  status: 'up' | 'down' | 'disabled';
  detail: string;
  /** When the probe ran (results are reused for a few seconds). */
  checked_at: string;
  duration_ms: number;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: Record<string, DependencyCheck>;
}

const READINESS_CACHE_MS = 5_000;

interface Cached {
  at: number;
  check: Promise<DependencyCheck>;
}

export class Readiness {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly probes: readonly DependencyProbe[],
    private readonly cacheMs = READINESS_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async report(): Promise<ReadinessReport> {
    const checks = await Promise.all(this.probes.map((probe) => this.check(probe)));
    const named = Object.fromEntries(this.probes.map((probe, i) => [probe.name, checks[i]!]));
    return { status: checks.every((c) => c.status !== 'down') ? 'ready' : 'not_ready', checks: named };
  }

  private check(probe: DependencyProbe): Promise<DependencyCheck> {
    const started = this.now();
    if (probe.disabled !== undefined) {
      return Promise.resolve({ status: 'disabled', detail: probe.disabled, checked_at: new Date(started).toISOString(), duration_ms: 0 });
    }
    const cached = this.cache.get(probe.name);
    if (cached && started - cached.at < this.cacheMs) return cached.check;
    const check = probe.run().then(
      (result) => result,
      (err: unknown): ProbeResult => ({ up: false, detail: err instanceof Error ? err.message : String(err) }),
    ).then((result): DependencyCheck => ({
      status: result.up ? 'up' : 'down',
      detail: result.detail,
      checked_at: new Date(started).toISOString(),
      duration_ms: this.now() - started,
    }));
    this.cache.set(probe.name, { at: started, check });
    return check;
  }
}
