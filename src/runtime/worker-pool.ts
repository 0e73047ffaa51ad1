// A pool of worker threads that an actor runs tasks on (the reconciler's smb-reader and indexer pools). piscina replaces a
// pool worker that dies by itself and fails only the task it was running, so pools need no restart policy of
// ours; the owning actor reports their state (ActorBehaviour.pools), and /healthz lists them beside the actors.
// Threads start as tasks come and end after IDLE_THREAD_MS without one: an idle service holds none (each holds its
// modules and heap), and the first task after a quiet spell waits for a thread to start (bench/RESULTS.md, Figures
// from source comments). Work whose latency people see (a save becoming searchable) keeps one thread warm for a
// while after it (keepWarm), so that only the first of a series of saves pays for the start.
import type { HeapInfo } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { PoolProtocol, PoolResult, PoolTask } from './pool-protocol.js';

/** How long a pool thread without a task lives on. */
const IDLE_THREAD_MS = 30_000;

/** A pool's line in the health report (an ActorHealth of kind `pool`). */
export interface PoolHealth {
  state: 'running' | 'stopping';
  kind: 'pool';
  restarts: 0;
  details: { threads: number; maxThreads: number; queued: number; completed: number; utilization: number };
}

/** A pool whose threads run the task module at `entry`, which serves the tasks of `P` (servePoolTasks). */
export class WorkerPool<P extends PoolProtocol> {
  private readonly piscina: Piscina<PoolTask<P>, unknown>;
  private readonly maxThreads: number;
  private readonly idleThreadMs: number;
  private closing = false;
  /** While keepWarm holds a thread: until when (performance.now()), and the timer that gives it a task. */
  private warmUntil = 0;
  private warmTimer: NodeJS.Timeout | undefined;

  /**
   * `maxThreads`: threads at most; `tasksPerThread`: tasks a thread runs at once, more than 1 for tasks that mostly
   * wait for I/O; `idleThreadMs`: how long a thread without a task lives on (IDLE_THREAD_MS unless given).
   */
  constructor(
    readonly name: string,
    entry: URL,
    maxThreads: number,
    workerData: unknown,
    options: { tasksPerThread?: number; resourceLimits?: ResourceLimits; idleThreadMs?: number } = {},
  ) {
    this.maxThreads = maxThreads;
    this.idleThreadMs = options.idleThreadMs ?? IDLE_THREAD_MS;
    this.piscina = new Piscina({
      filename: entry.href,
      minThreads: 0,
      maxThreads,
      idleTimeout: this.idleThreadMs,
      concurrentTasksPerWorker: options.tasksPerThread ?? 1,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      workerData,
      // piscina's default ('sync') parks an idle thread in Atomics.wait, which stops its event loop: the SMB
      // connections a pool thread keeps between tasks would miss their timers and the server's messages.
      atomics: 'disabled',
      // Keep a bounded queue so that overload shows up as errors, not memory.
      maxQueue: maxThreads * 64,
    });
  }

  /**
   * Runs `task` on a thread and answers what its kind answers. `transfer`: buffers of the task moved to the pool
   * thread rather than copied (unusable here afterwards).
   */
  run<K extends keyof P & string>(task: { type: K } & P[K]['task'], transfer: ArrayBuffer[] = []): Promise<PoolResult<P, K>> {
    return this.piscina.run(task as PoolTask<P>, transfer.length === 0 ? {} : { transferList: transfer }) as Promise<PoolResult<P, K>>;
  }

  /**
   * Starts a thread if none runs, with `task` (a no-op such as a ping), so that a task soon to come does not wait for
   * one to start: the next stage of a pipeline warms while the one before still works.
   */
  warm(task: PoolTask<P>): void {
    if (this.closing || this.piscina.threads.length > 0) return;
    this.piscina.run(task).catch(() => undefined);
  }

  /**
   * Starts a thread if none runs (as `warm`) and keeps one running until `forMs` from now, by giving it `task` (a
   * no-op) before it would end idle; a later call moves the end. Only one thread is kept: the others end as usual.
   */
  keepWarm(task: PoolTask<P>, forMs: number): void {
    this.warm(task);
    this.warmUntil = performance.now() + forMs;
    if (this.warmTimer !== undefined || this.closing) return;
    this.warmTimer = setInterval(() => {
      if (this.closing || performance.now() >= this.warmUntil) {
        clearInterval(this.warmTimer);
        this.warmTimer = undefined;
        return;
      }
      this.piscina.run(task).catch(() => undefined);
    }, this.idleThreadMs / 2);
    // A warm thread is no reason to keep the process alive.
    this.warmTimer.unref();
  }

  health(): PoolHealth {
    return {
      state: this.closing ? 'stopping' : 'running',
      kind: 'pool',
      restarts: 0,
      details: {
        threads: this.piscina.threads.length,
        maxThreads: this.maxThreads,
        queued: this.piscina.queueSize,
        completed: this.piscina.completed,
        utilization: Number(this.piscina.utilization.toFixed(3)),
      },
    };
  }

  /** V8 heap statistics of the pool's threads now, as `<pool>#<n>` (a thread that ends meanwhile is left out). */
  async heaps(): Promise<Record<string, HeapInfo>> {
    const heaps = await Promise.all(this.piscina.threads.map((worker) => worker.getHeapStatistics().catch(() => undefined)));
    return Object.fromEntries(heaps.flatMap((heap, i) => (heap ? [[`${this.name}#${i + 1}`, heap]] : [])));
  }

  /** Finish queued tasks, then end the threads; force them after the timeout. */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true;
    clearInterval(this.warmTimer);
    this.warmTimer = undefined;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    await Promise.race([this.piscina.close().catch(() => undefined), overrun]);
    clearTimeout(timer);
    await this.piscina.destroy();
  }
}
