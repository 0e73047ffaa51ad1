// GET /readyz: whether the dependencies the service needs answer. Each probe's
// result is kept for a few seconds, so that frequent readiness probes (and
// several http-fronts) do not hammer the directory or the file servers. Once
// it is older, the next call starts the probe again and is answered with the
// result it has, as are the calls while that probe runs: a balancer's check
// does not wait for a logon to the file server, which on a busy machine took
// longer than the check's timeout and had haproxy take every proxy out at once
// (stop 53: "Layer7 timeout, check duration: 3011ms" for all three). Only the
// first call waits, and any call once the result is older than the keeping
// time and a probe's timeout together (a probe that has not ended by then is
// stuck, and its caller learns it).
//
// A dependency that was up counts as down after two failed probes in a row; the
// second runs at the next call after the first. On the same busy machine a
// single logon now and then took longer than the 3 s probes had then (an SMB
// negotiate, an LDAPS connect), and each one took a proxy out of the balancer
// for seconds, moving its webhook senders to another; probes now have 10 s, as
// no check waits for them. A dependency that is gone is still down after two
// probes: at once when its port refuses, after 20 s when it does not answer.
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

/**
 * How long a probe may take before its dependency counts as down (each probe applies it: supervisor/
 * dependency-probes.ts, and the `readiness` use of src/search/client.ts), or the dependency's own timeout in
 * config.yml when that is shorter (`ldap.timeout`, 5 s by default). The file server's requests wait longer
 * (`smb.request_timeout`, 30 s): a dependency that is slow but answers is not down.
 */
export const PROBE_TIMEOUT_MS = 10_000;

/** One probe's run. */
interface ProbeOutcome {
  status: 'up' | 'down' | 'disabled';
  started: number;
  duration_ms: number;
}

/** A probe's last result, and its run under way. */
interface ProbeState {
  settled?: ProbeOutcome;
  running?: Promise<ProbeOutcome>;
  /** Failed probes since the last that answered. */
  failures: number;
}

export class Readiness {
  private readonly states = new Map<DependencyProbe, ProbeState>();

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

  /**
   * The probe's state to answer now: its last while younger than the keeping time (and not held up over a failed
   * probe); else its last while it is probed again (one run at a time), unless that one is older than the keeping
   * time and a probe's timeout or there is none, when the run is waited for.
   */
  private run(probe: DependencyProbe): Promise<ProbeOutcome> {
    const now = this.now();
    if (probe.disabled !== undefined) return Promise.resolve({ status: 'disabled', started: now, duration_ms: 0 });
    const state = this.states.get(probe) ?? { failures: 0 };
    this.states.set(probe, state);
    const { settled } = state;
    const heldOverAFailure = settled?.status === 'up' && state.failures > 0;
    if (settled !== undefined && !heldOverAFailure && now - settled.started < this.cacheMs) return Promise.resolve(settled);
    state.running ??= this.probeOnce(probe, state, now).then((outcome) => {
      state.settled = outcome;
      state.running = undefined;
      return outcome;
    });
    if (settled !== undefined && now - settled.started < this.cacheMs + PROBE_TIMEOUT_MS) return Promise.resolve(settled);
    return state.running;
  }

  /**
   * Runs the probe; its state is down when it failed and the one before it too, or when it never was up. The log
   * says when the state changes (and when a failure is held), not at every probe.
   */
  private async probeOnce(probe: DependencyProbe, state: ProbeState, started: number): Promise<ProbeOutcome> {
    let result: ProbeResult;
    try {
      result = await probe.run();
    } catch (err) {
      result = { up: false, detail: err instanceof Error ? err.message : String(err) };
    }
    const before = state.settled?.status;
    state.failures = result.up ? 0 : state.failures + 1;
    const held = !result.up && state.failures === 1 && before === 'up';
    const status = result.up || held ? 'up' : 'down';
    if (held) this.log.info(this.fields(probe, result), 'readiness: a probe failed; probing again before counting the dependency down');
    else if (status !== before) {
      if (result.up) this.log.info(this.fields(probe, result), 'readiness: dependency up');
      else this.log.warn(this.fields(probe, result), 'readiness: dependency down');
    }
    return { status, started, duration_ms: this.now() - started };
  }

  private fields(probe: DependencyProbe, result: ProbeResult): object {
    return { dependency: probe.name, ...(probe.server === undefined ? {} : { server: probe.server }), detail: result.detail };
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
