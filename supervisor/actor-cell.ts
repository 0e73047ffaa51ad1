// One supervised actor: its worker thread, its state, and its restarts.
import type { HeapInfo } from 'node:v8';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ActorKind } from '../actors/kinds.js';
import type { ActorDetails, ActorStartData, ActorToSupervisor, ServiceSecrets, SupervisorToActor } from '../src/runtime/control.js';
import { withoutPaths, type ActorHealth, type ActorState } from '../src/runtime/health.js';
import type { PoolHealth } from '../src/runtime/worker-pool.js';
import { RestartPolicy, type RestartLimits } from './restart-policy.js';

export interface CellEvents {
  /** The actor (re)started and can be connected to peers. */
  ready(cell: ActorCell): void;
  /** The actor died; peers must drop their channels to it. */
  down(cell: ActorCell, reason: string): void;
  /** The restart limit was hit. */
  gaveUp(cell: ActorCell, reason: string): void;
}

const PING_TIMEOUT_MS = 1_000;

/** How a cell starts the threads of its actor. */
interface ThreadOptions {
  /** V8 heap limits (src/runtime/heap-limits.ts). */
  heapLimits: ResourceLimits;
  /** The threads' environment (with the compile cache's directory, src/runtime/compile-cache.ts). */
  env: NodeJS.ProcessEnv;
  /** Keep the next incarnation loaded and waiting beside the running one (`supervisor.spare_threads`). */
  spare: boolean;
}

/** What an actor answers to a ping. */
interface Pong {
  details: ActorDetails;
  pools: Record<string, PoolHealth>;
}

export class ActorCell {
  state: ActorState = 'starting';
  private worker: Worker | undefined;
  private restarts = 0;
  private readyAt = 0;
  /** Why the current incarnation died, if it reported it. */
  private crashReason: string | undefined;
  /** The most recent crash reason, kept for /healthz. */
  private lastError: string | undefined;
  private nextPingId = 1;
  private readonly pings = new Map<number, (pong: Pong) => void>();
  private readonly policy: RestartPolicy;
  private stopped: (() => void) | undefined;
  /** The next incarnation, loaded and waiting (see prepareSpare), and how to drop its spare-time listeners. */
  private spare: { worker: Worker; detach(): void } | undefined;

  constructor(
    readonly name: string,
    readonly kind: ActorKind,
    private readonly entry: URL,
    private readonly config: unknown,
    private readonly secrets: ServiceSecrets,
    private readonly thread: ThreadOptions,
    limits: RestartLimits,
    private readonly events: CellEvents,
    private readonly log: Logger,
  ) {
    this.policy = new RestartPolicy(limits);
  }

  start(): void {
    this.crashReason = undefined;
    const spare = this.spare;
    this.spare = undefined;
    spare?.detach();
    const worker = spare?.worker ?? this.spawn();
    this.worker = worker;
    worker.on('message', (msg: ActorToSupervisor) => this.onMessage(msg));
    // 'error' precedes 'exit' for uncaught errors the actor could not report itself.
    worker.on('error', (err) => this.noteCrash(err.message));
    worker.on('exit', (code) => this.onExit(worker, code));
    worker.postMessage({ type: 'activate' } satisfies SupervisorToActor);
  }

  /** A thread with the actor's code loaded, waiting for `activate`. */
  private spawn(): Worker {
    const data: ActorStartData = { name: this.name, config: this.config, secrets: this.secrets };
    return new Worker(this.entry, { workerData: data, name: this.name, resourceLimits: this.thread.heapLimits, env: this.thread.env });
  }

  /**
   * The next incarnation, loaded while this one runs: a restart then skips starting a thread and loading the
   * actor's modules (the slow part of a cold start, slower still on a busy host), at the price of a thread that holds
   * the actor's modules, so it is kept only with `supervisor.spare_threads` (bench/RESULTS.md, Idle memory, has both
   * figures). A spare that dies is simply replaced by a cold start.
   */
  private prepareSpare(): void {
    if (!this.thread.spare || this.spare || this.state !== 'running') return;
    const worker = this.spawn();
    const onError = (err: Error) => this.log.warn({ actor: this.name, err: err.message }, 'spare actor thread failed');
    const onExit = () => { if (this.spare?.worker === worker) this.spare = undefined; };
    worker.on('error', onError).on('exit', onExit);
    this.spare = { worker, detach: () => worker.off('error', onError).off('exit', onExit) };
  }

  /** Ends the spare at once, even while it still loads (it has opened nothing: no sockets, no files). */
  private async retireSpare(): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    spare?.detach();
    await spare?.worker.terminate();
  }

  send(msg: SupervisorToActor): void {
    if (msg.type === 'connect') this.worker?.postMessage(msg, [msg.port]);
    else this.worker?.postMessage(msg);
  }

  /** The actor's own report and its pools', or undefined when it does not answer in time. */
  private ping(): Promise<Pong | undefined> {
    if (this.state !== 'running') return Promise.resolve(undefined);
    const id = this.nextPingId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pings.delete(id); resolve(undefined); }, PING_TIMEOUT_MS);
      this.pings.set(id, (pong) => { clearTimeout(timer); resolve(pong); });
      this.send({ type: 'ping', id });
    });
  }

  /** The actor's health and that of the pools it owns (none while it is not running). */
  async report(): Promise<{ actor: ActorHealth; pools: Record<string, PoolHealth> }> {
    const pong = await this.ping();
    const details = pong?.details;
    const actor: ActorHealth = {
      state: this.state,
      kind: 'actor',
      restarts: this.restarts,
      ...(this.state === 'running' ? { uptimeSeconds: Math.round((Date.now() - this.readyAt) / 1000) } : {}),
      ...(this.lastError ? { lastError: withoutPaths(this.lastError) } : {}),
      ...(details ? { details } : {}),
    };
    return { actor, pools: pong?.pools ?? {} };
  }

  /** V8 heap statistics of the actor's thread and of its spare, by thread name; asked of V8 from this thread. */
  async heaps(): Promise<Record<string, HeapInfo>> {
    const threads: Array<[string, Worker | undefined]> = [[this.name, this.state === 'running' ? this.worker : undefined], [`${this.name} (spare)`, this.spare?.worker]];
    const heaps = await Promise.all(threads.map(async ([thread, worker]) =>
      [thread, await worker?.getHeapStatistics().catch(() => undefined)] as const));
    return Object.fromEntries(heaps.filter((entry): entry is readonly [string, HeapInfo] => entry[1] !== undefined));
  }

  /** Ask the actor to drain and exit; terminate it if it overruns the timeout. */
  async stop(timeoutMs: number): Promise<void> {
    await this.retireSpare();
    const worker = this.worker;
    if (!worker || this.state === 'stopped' || this.state === 'failed') { this.state = 'stopped'; return; }
    this.state = 'stopping';
    const exited = new Promise<void>((resolve) => { this.stopped = resolve; });
    this.send({ type: 'stop', timeoutMs });
    const overrun = setTimeout(() => {
      this.log.warn({ actor: this.name }, 'actor did not stop in time; terminating it');
      void worker.terminate();
    }, timeoutMs + 1_000);
    await exited;
    clearTimeout(overrun);
  }

  private onMessage(msg: ActorToSupervisor): void {
    switch (msg.type) {
      case 'ready':
        // Asked to stop while it started: it stops, and must not count as running (its exit would be taken for a
        // crash and restarted, and stop() would wait for an exit that never comes).
        if (this.state === 'stopping') break;
        this.state = 'running';
        this.readyAt = Date.now();
        this.log.info({ actor: this.name, restarts: this.restarts }, 'actor ready');
        this.events.ready(this);
        this.prepareSpare();
        break;
      case 'pong':
        this.pings.get(msg.id)?.({ details: msg.details, pools: msg.pools });
        this.pings.delete(msg.id);
        break;
      case 'failed':
        this.noteCrash(`${msg.phase === 'start' ? 'start failed' : 'crashed'}: ${msg.error.message}`);
        break;
      case 'stopped':
        break;
    }
  }

  private noteCrash(reason: string): void {
    this.crashReason = reason;
    this.lastError = reason;
  }

  private onExit(worker: Worker, code: number): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    if (this.state === 'stopping') {
      this.state = 'stopped';
      this.stopped?.();
      return;
    }
    const reason = this.crashReason ?? `thread exited with code ${code}`;
    this.lastError = reason;
    this.log.error({ actor: this.name, code, reason }, 'actor died');
    this.events.down(this, reason);
    const decision = this.policy.onCrash(Date.now());
    if (!decision.restart) {
      this.state = 'failed';
      void this.retireSpare();
      this.events.gaveUp(this, decision.reason);
      return;
    }
    this.state = 'restarting';
    this.restarts++;
    setTimeout(() => {
      if (this.state !== 'restarting') return; // stopped meanwhile
      this.start();
    }, decision.delayMs);
  }
}
