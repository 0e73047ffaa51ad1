// The supervisor: runs on the main thread, spawns every actor (pools belong to the actor that uses them),
// wires channels between them, restarts crashed actors and shuts all down.
import { MessageChannel } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../src/config/index.js';
import { threadEnvironment } from '../src/runtime/compile-cache.js';
import type { ServiceSecrets } from '../src/runtime/control.js';
import type { HealthReport } from '../src/runtime/health.js';
import { instanceNames } from '../src/runtime/instance-names.js';
import { RpcChannel } from '../src/runtime/rpc.js';
import { threadBundle } from '../src/runtime/thread-bundles.js';
import { setInitialOldGeneration } from '../src/runtime/heap-limits.js';
import type { ActorKind, SupervisorProtocol } from '../actors/kinds.js';
import { MAX_SKEW_SECONDS } from '../src/kerberos/acceptor.js';
import { REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT, ReplayCache } from '../src/kerberos/replay-cache.js';
import { dependencyProbes } from './dependency-probes.js';
import { Readiness } from '../src/metrics/readiness.js';
import { mergeSnapshots, type MetricSnapshot, type MetricsSource } from '../src/metrics/snapshot.js';
import { SupervisorMetrics } from '../src/metrics/supervisor-metrics.js';
import type { ThreadHeaps } from '../src/metrics/thread-heaps.js';
import { ActorCell, type CellEvents } from './actor-cell.js';
import { actorPlans, linked } from './topology.js';

const STARTUP_TIMEOUT_MS = 30_000;
/** An actor that does not hand over its metrics this fast is left out of a scrape (its actor_up says why). */
const METRICS_TIMEOUT_MS = 2_000;

/** What start() fails with when stop() came before every actor was ready (a signal during the start). */
export class StoppedWhileStarting extends Error {
  constructor() {
    super('stopped before every actor was ready');
  }
}

export class Supervisor {
  private readonly cells: ActorCell[] = [];
  /** The supervisor's own channel to each running actor, by actor name. */
  private readonly channels = new Map<string, RpcChannel>();
  private stopping: Promise<void> | undefined;
  private exitCode = 0;
  private resolveDone!: (code: number) => void;
  /** Resolves with the process exit code once everything has stopped. */
  readonly done = new Promise<number>((resolve) => { this.resolveDone = resolve; });
  private startupFailed: ((err: Error) => void) | undefined;
  private readonly readiness: Readiness;
  private readonly ownMetrics = new SupervisorMetrics();
  /**
   * The replay cache of HTTP Negotiate for every http-front (src/kerberos/replay-cache.ts). Here rather than in an
   * actor or in shared memory: this thread outlives every actor restart, so no restart forgets an authenticator
   * still inside the skew window (a new incarnation of an actor would start empty and let a replay through), and a
   * Map behind one channel needs no lock-free table of its own. The cost is one round trip per Negotiate request,
   * next to the two AES decryptions of the ticket and authenticator (measured: bench/negotiate/run.ts, bench/RESULTS.md).
   */
  private readonly replays = new ReplayCache(MAX_SKEW_SECONDS * 1000, REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT);

  constructor(private readonly config: Config, secrets: ServiceSecrets, private readonly log: Logger) {
    this.readiness = new Readiness(dependencyProbes(config, secrets), log);

    const events: CellEvents = {
      ready: (cell) => this.wire(cell),
      down: (cell, reason) => this.unwire(cell, reason),
      gaveUp: (cell, reason) => {
        const err = new Error(`actor ${cell.name} keeps crashing (${reason}); giving up`);
        this.log.fatal({ actor: cell.name }, err.message);
        this.startupFailed?.(err);
        this.exitCode = 1;
        void this.stop();
      },
    };
    const limits = {
      maxRestarts: config.supervisor.max_restarts,
      windowMs: config.supervisor.restart_window,
      backoffInitialMs: config.supervisor.backoff_initial,
      backoffMaxMs: config.supervisor.backoff_max,
    };
    // Before the first thread: V8 reads it when it makes a thread's heap.
    setInitialOldGeneration();
    const plans = actorPlans(config);
    const env = threadEnvironment(config.storage.data_dir);
    for (const kind of Object.keys(plans) as ActorKind[]) {
      const { instances, heapLimits } = plans[kind];
      const thread = { heapLimits, env, spare: config.supervisor.spare_threads };
      for (const name of instanceNames(kind, instances)) {
        const entry = threadBundle(`actors/${kind}/main.js`);
        this.cells.push(new ActorCell(name, kind, entry, config, secrets, thread, limits, events, log));
      }
    }
  }

  /** Start every actor and pool; resolves when all are ready. */
  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let check: NodeJS.Timeout | undefined;
    const allReady = new Promise<void>((resolve, reject) => {
      this.startupFailed = reject;
      timer = setTimeout(() => {
        const late = this.cells.filter((c) => c.state !== 'running').map((c) => c.name);
        reject(new Error(`actors not ready after ${STARTUP_TIMEOUT_MS} ms: ${late.join(', ')}`));
      }, STARTUP_TIMEOUT_MS);
      check = setInterval(() => {
        if (this.cells.every((c) => c.state === 'running')) resolve();
      }, 20);
    });
    for (const cell of this.cells) cell.start();
    try {
      await allReady;
    } finally {
      clearTimeout(timer);
      clearInterval(check);
      this.startupFailed = undefined;
    }
    this.log.info({ actors: this.cells.map((c) => c.name) }, 'all actors ready');
  }

  async health(): Promise<HealthReport> {
    const report: HealthReport = { status: 'ok', actors: {} };
    const reports = await Promise.all(this.cells.map((c) => c.report()));
    // Pools are listed beside the actors; an actor that owns one reports it (none while the actor is down).
    this.cells.forEach((cell, i) => { Object.assign(report.actors, { [cell.name]: reports[i]!.actor }, reports[i]!.pools); });
    if (Object.values(report.actors).some((a) => a.state !== 'running')) report.status = 'degraded';
    return report;
  }

  /** Prometheus text: this thread's metrics (process, actors, pools) and those of every running actor, merged. */
  async metrics(): Promise<string> {
    const fromActors = [...this.channels.entries()].map(([name, channel]) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<MetricSnapshot>((resolve) => { timer = setTimeout(() => resolve([]), METRICS_TIMEOUT_MS); });
      const snapshot = channel.remote<MetricsSource>().metrics().catch((err: unknown) => {
        this.log.warn({ err, actor: name }, 'actor metrics not collected');
        return [];
      });
      return Promise.race([snapshot, late]).finally(() => clearTimeout(timer));
    });
    const heaps = Object.assign({}, ...await Promise.all(this.cells.map((c) => c.heaps()))) as ThreadHeaps;
    const own = this.ownMetrics.snapshot(await this.health(), heaps);
    return mergeSnapshots(await Promise.all([own, ...fromActors]));
  }

  /**
   * Graceful shutdown: the HTTP fronts stop accepting and drain first (they
   * may still need their peers to finish requests), then the other actors,
   * (each closing the pools it owns).
   */
  stop(): Promise<void> {
    // A stop during the start ends the start at once, rather than after the startup timeout.
    this.startupFailed?.(new StoppedWhileStarting());
    this.stopping ??= (async () => {
      const timeout = this.config.supervisor.shutdown_timeout;
      this.log.info({ timeoutMs: timeout }, 'shutting down');
      const fronts = this.cells.filter((c) => c.kind === 'http-front');
      await Promise.all(fronts.map((c) => c.stop(timeout)));
      await Promise.all(this.cells.filter((c) => c.kind !== 'http-front').map((c) => c.stop(timeout)));
      for (const channel of this.channels.values()) channel.fail('supervisor stopped');
      this.log.info({ exitCode: this.exitCode }, 'stopped');
      this.resolveDone(this.exitCode);
    })();
    return this.stopping;
  }

  private wire(cell: ActorCell): void {
    const handlers: SupervisorProtocol = {
      health: () => this.health(),
      readiness: () => this.readiness.report(),
      metrics: () => this.metrics(),
      admitAuthenticator: async (client, ctime, cusec, now) => this.replays.verdict(client, ctime, cusec, now),
    };
    const own = new MessageChannel();
    this.channels.get(cell.name)?.fail('actor restarted');
    this.channels.set(cell.name, new RpcChannel(own.port1, cell.name, handlers));
    cell.send({ type: 'connect', peer: 'supervisor', port: own.port2 });

    for (const other of this.cells) {
      if (other === cell || other.state !== 'running' || !linked(cell.kind, other.kind)) continue;
      const { port1, port2 } = new MessageChannel();
      cell.send({ type: 'connect', peer: other.name, port: port1 });
      other.send({ type: 'connect', peer: cell.name, port: port2 });
    }
  }

  private unwire(cell: ActorCell, reason: string): void {
    this.channels.get(cell.name)?.fail(reason);
    this.channels.delete(cell.name);
    for (const other of this.cells) {
      if (other !== cell && linked(cell.kind, other.kind)) {
        other.send({ type: 'disconnect', peer: cell.name, reason: `${cell.name} crashed: ${reason}` });
      }
    }
  }
}
