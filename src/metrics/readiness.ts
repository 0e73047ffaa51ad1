// GET /readyz: whether the dependencies the service needs answer. Each probe's
// result is kept for a few seconds, so that frequent readiness probes (and
// several http-fronts) do not hammer the directory or the file servers; calls
// that arrive while a probe runs share it.
//
// /readyz answers without authentication, so a check is a state and nothing
// else: no host, URL, account or error text. What was checked and what came
// back goes to the log, once each time a probe's state changes (a flood of
// probes logs nothing more), and `fileproxy doctor` prints the same checks with
// their fixes.
import type { Logger } from '../common/logger.js';

export interface ProbeResult {
  up: boolean;
  /** What was checked and what came back, for the operator's log (never a secret). */
  detail: string;
}

export interface DependencyProbe {
  /** The check it reports under: `elasticsearch`, `ldap`, `smb` (one probe per file server, reported as one check). */
  name: string;
  /** Which server of a check probed per server (`smb://host:port`): for the log only. */
  server?: string;
  /** Off by configuration: reported, but not needed for readiness. */
  disabled?: string;
  run(): Promise<ProbeResult>;
}

type CheckStatus = 'up' | 'down' | 'degraded' | 'disabled';

interface DependencyCheck {
  /** `degraded`: some of the check's servers answer, not all. */
  status: CheckStatus;
  /** Of a check probed per server: how many answer, of how many. */
  servers?: { up: number; total: number };
  /** When the probe ran (results are reused for a few seconds); the oldest of a check's servers. */
  checked_at: string;
  /** The slowest of a check's servers. */
  duration_ms: number;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: Record<string, DependencyCheck>;
}

const READINESS_CACHE_MS = 5_000;

/** One probe's run. */
interface ProbeOutcome {
  status: 'up' | 'down' | 'disabled';
  started: number;
  duration_ms: number;
}

interface Cached {
  at: number;
  outcome: Promise<ProbeOutcome>;
}

export class Readiness {
  private readonly cache = new Map<DependencyProbe, Cached>();
  /** Each probe's last state, to log only its changes. */
  private readonly logged = new Map<DependencyProbe, boolean>();

  constructor(
    private readonly probes: readonly DependencyProbe[],
    private readonly log: Logger,
    private readonly cacheMs = READINESS_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async report(): Promise<ReadinessReport> {
    const outcomes = await Promise.all(this.probes.map((probe) => this.run(probe)));
    const byName = new Map<string, { probes: DependencyProbe[]; outcomes: ProbeOutcome[] }>();
    this.probes.forEach((probe, i) => {
      const group = byName.get(probe.name) ?? { probes: [], outcomes: [] };
      group.probes.push(probe);
      group.outcomes.push(outcomes[i]!);
      byName.set(probe.name, group);
    });
    const checks = Object.fromEntries([...byName].map(([name, group]) => [name, checkOf(group.probes, group.outcomes)]));
    const ready = Object.values(checks).every((c) => c.status === 'up' || c.status === 'disabled');
    return { status: ready ? 'ready' : 'not_ready', checks };
  }

  private run(probe: DependencyProbe): Promise<ProbeOutcome> {
    const started = this.now();
    if (probe.disabled !== undefined) return Promise.resolve({ status: 'disabled', started, duration_ms: 0 });
    const cached = this.cache.get(probe);
    if (cached && started - cached.at < this.cacheMs) return cached.outcome;
    const outcome = probe.run().then(
      (result) => result,
      (err: unknown): ProbeResult => ({ up: false, detail: err instanceof Error ? err.message : String(err) }),
    ).then((result): ProbeOutcome => {
      this.logChange(probe, result);
      return { status: result.up ? 'up' : 'down', started, duration_ms: this.now() - started };
    });
    this.cache.set(probe, { at: started, outcome });
    return outcome;
  }

  private logChange(probe: DependencyProbe, result: ProbeResult): void {
    if (this.logged.get(probe) === result.up) return;
    this.logged.set(probe, result.up);
    const fields = { dependency: probe.name, ...(probe.server === undefined ? {} : { server: probe.server }), detail: result.detail };
    if (result.up) this.log.info(fields, 'readiness: dependency up');
    else this.log.warn(fields, 'readiness: dependency down');
  }
}

/** The check of one dependency: its probe's state, or, probed per server, up, down or degraded with the counts. */
function checkOf(probes: DependencyProbe[], outcomes: ProbeOutcome[]): DependencyCheck {
  const checked_at = new Date(Math.min(...outcomes.map((o) => o.started))).toISOString();
  const duration_ms = Math.max(...outcomes.map((o) => o.duration_ms));
  if (probes[0]!.server === undefined) return { status: outcomes[0]!.status, checked_at, duration_ms };
  const up = outcomes.filter((o) => o.status === 'up').length;
  const status: CheckStatus = up === outcomes.length ? 'up' : up === 0 ? 'down' : 'degraded';
  return { status, servers: { up, total: outcomes.length }, checked_at, duration_ms };
}
