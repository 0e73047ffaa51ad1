/**
 * The drift reconciler: runs one job at a time (jobs.ts), so there are never two passes over a share at once.
 * A pass is due shortly after start and then `interval` after the previous one ended (sooner after a pass that
 * could not finish). A pass asked for while one is queued or running joins it instead of running again.
 * Reindex and rebuild requests (the admin channel) queue behind the running job.
 */
import { errors as esErrors, type Client } from '@elastic/elasticsearch';
import type { BulkWriter } from '../operations.js';
import { IndexManager } from './index-manager.js';
import { describeSearchError } from '../../search/search-failure.js';
import type { Logger } from '../../common/logger.js';
import type { IndexLayout } from '../../search/mapping.js';
import { IndexWriteError } from './index-writer.js';
import { shareQuery } from './inventory.js';
import { isTerminal, Job, type JobInfo, type JobRequest } from './jobs.js';
import { rebuildFromShares } from './rebuild.js';
import { runSharePass, type ShareSource } from './share-pass.js';

/** The index's part (wiki-index.ts): the alias exists and fits this build, and may be written. */
export interface IndexGate {
  /** Makes sure the alias exists (creating or migrating it); throws when Elasticsearch cannot be reached. */
  prepare(): Promise<void>;
  /** Null when writes are allowed, else why not. */
  refusal(): string | null;
}

export interface ReconcilerShare {
  server: string;
  share: string;
}

interface ReconcilerOptions {
  client: Client;
  /** Renders and writes the batches (the indexer pool in the service). */
  bulk: BulkWriter;
  alias: string;
  /** Of the index a rebuild creates (elasticsearch.index); default: a single node's. */
  layout?: IndexLayout;
  index: IndexGate;
  shares: readonly ReconcilerShare[];
  source(share: ReconcilerShare): ShareSource;
  intervalMs: number;
  /** Delay of the first pass after start. */
  firstPassDelayMs: number;
  /** After a pass that could not finish, the next one comes this soon (at most `intervalMs`). */
  retryDelayMs: number;
  /** Told of every pass that ended (of all shares or, asked for by a change watch, of one or of `folders` of one). */
  onPassFinished?(info: JobInfo, folders: readonly string[] | null): void;
  /** Differences applied at once per pass. Default 16. */
  concurrency?: number;
  /** Folder listings requested ahead per level. Default 8. */
  lookahead?: number;
  log: Logger;
}

/** A request the reconciler cannot take (an unknown share, ...); the admin channel answers it as an error. */
export class JobRequestError extends Error {
  override readonly name = 'JobRequestError';
}

export interface ReconcilerStatus {
  intervalMs: number;
  /** Passes finished since start. */
  passes: number;
  /** The latest pass over every share: last start, duration, pages seen, added, updated, removed, errors. */
  lastPass: JobInfo | null;
  /** The latest reindex, rebuild, or pass of one share or of folders of it that a change watch asked for. */
  lastJob: JobInfo | null;
  running: JobInfo | null;
  queued: Pick<JobInfo, 'id' | 'kind' | 'shares' | 'trigger'>[];
  /** When the next pass is due (none while one is queued or running). */
  nextRun: string | null;
}

/** Differences applied at once and folder listings requested ahead, unless the options say otherwise. */
export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_LOOKAHEAD = 8;

/** How often a running job's progress is published. */
const PROGRESS_INTERVAL_MS = 250;

/** A pass (not a dry run) that covers all of `shares`, whole. */
function isPassOf(job: Job, shares: readonly string[]): boolean {
  return shares.every((share) => job.covers(share, ''));
}

/** Failures of Elasticsearch end the whole job; those of one share's SMB server only that share. */
function isIndexFailure(error: unknown): boolean {
  return error instanceof IndexWriteError || error instanceof esErrors.ElasticsearchClientError;
}

export class Reconciler {
  private readonly options: ReconcilerOptions;
  private readonly manager: IndexManager;
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private nextRunAt: number | null = null;
  private passes = 0;
  private lastPass: JobInfo | null = null;
  private lastJob: JobInfo | null = null;
  private stopped = false;

  constructor(options: ReconcilerOptions) {
    this.options = options;
    const { client, alias, layout, log } = options;
    this.manager = new IndexManager({ client, alias, log, ...(layout === undefined ? {} : { layout }) });
  }

  start(): void {
    this.schedule(this.options.firstPassDelayMs, 'start');
  }

  /** Queues a job, or returns the pass already queued or running when a pass is asked for. */
  submit(request: JobRequest, trigger: string): Job {
    if (this.stopped) throw new JobRequestError('the service is stopping');
    const all = this.options.shares.map((s) => s.share);
    const shares = request.kind === 'reindex' && request.shares !== undefined ? request.shares : all;
    const unknown = shares.filter((name) => !all.includes(name));
    if (unknown.length > 0) {
      throw new JobRequestError(`not a share in smb.shares: ${unknown.map((n) => `'${n}'`).join(', ')} (configured: ${all.join(', ')})`);
    }
    if (shares.length === 0) throw new JobRequestError('no shares given');
    const dryRun = request.dryRun ?? false;
    if (request.kind === 'pass' && !dryRun) {
      const joinable = [this.running, ...this.queue].find((job) => job !== undefined && isPassOf(job, shares) && !isTerminal(job.info.state));
      if (joinable !== undefined) return joinable;
    }
    const job = new Job(this.nextId++, { kind: request.kind, shares: [...new Set(shares)], dryRun }, trigger);
    this.queue.push(job);
    if (request.kind === 'pass') this.cancelTimer();
    void this.pump();
    return job;
  }

  /**
   * A pass of one share, or of folders' subtrees in it (`['']`: the whole share), for its change watch (an overflow,
   * folders renamed, a watch set up again). It joins a queued pass that covers it, or a queued pass of folders of that
   * share, never the running one, which may have walked past the change already. It does not move the periodic pass.
   */
  requestSharePass(share: string, trigger: string, folders: readonly string[] = ['']): void {
    const uncovered = folders.filter((folder) => !this.queue.some((job) => job.covers(share, folder)));
    if (this.stopped || uncovered.length === 0) return;
    const queued = uncovered.includes('') ? undefined : this.queue.find((job) => job.folders !== null && job.info.shares[0] === share);
    if (queued !== undefined) return uncovered.forEach((folder) => queued.addFolder(folder));
    const scope = uncovered.includes('') ? null : [];
    const job = new Job(this.nextId++, { kind: 'pass', shares: [share], dryRun: false }, trigger, scope);
    uncovered.forEach((folder) => job.addFolder(folder));
    this.queue.push(job);
    void this.pump();
  }

  /** Stops a job: a queued one at once, a running one between pages (what it did so far stays). */
  cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      job.end('cancelled');
    } else if (job === this.running) job.controller.abort();
  }

  status(): ReconcilerStatus {
    return {
      intervalMs: this.options.intervalMs,
      passes: this.passes,
      lastPass: this.lastPass,
      lastJob: this.lastJob,
      running: this.running?.snapshot() ?? null,
      queued: this.queue.map(({ info }) => ({ id: info.id, kind: info.kind, shares: info.shares, trigger: info.trigger })),
      nextRun: this.nextRunAt === null ? null : new Date(this.nextRunAt).toISOString(),
    };
  }

  /** Cancels what is queued, stops the running job and waits for it (up to the timeout). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    for (const job of this.queue.splice(0)) job.end('cancelled');
    const running = this.running;
    if (running === undefined) return;
    running.controller.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running.done, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  private schedule(delayMs: number, trigger: string): void {
    this.cancelTimer();
    if (this.stopped) return;
    this.nextRunAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.nextRunAt = null;
      this.submit({ kind: 'pass' }, trigger);
    }, delayMs);
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextRunAt = null;
  }

  private async pump(): Promise<void> {
    if (this.running !== undefined) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    this.running = job;
    job.info.state = 'running';
    job.info.startedAt = new Date().toISOString();
    job.publish();
    const ticker = setInterval(() => job.publish(), PROGRESS_INTERVAL_MS);
    try {
      await this.run(job);
    } catch (error) {
      job.info.errors.push(describeSearchError(error).error);
    } finally {
      clearInterval(ticker);
    }
    job.end(job.controller.signal.aborted ? 'cancelled' : job.info.errors.length > 0 ? 'failed' : 'finished');
    this.running = undefined;
    this.finished(job.snapshot(), job.folders);
    void this.pump();
  }

  /** `folders`: of a pass of folders, not of whole shares. */
  private finished(info: JobInfo, folders: readonly string[] | null): void {
    const partial = folders !== null;
    const { perShare, ...summary } = info;
    const problems = info.errors.length > 0 || info.failed > 0 || info.state === 'cancelled';
    const what = info.dryRun ? `wiki ${info.kind} (dry run)` : `wiki ${info.kind}`;
    const details = { ...summary, shares: perShare };
    if (problems) this.options.log.warn(details, `${what} ${info.state} with problems`);
    else this.options.log.info(details, `${what} finished`);
    if (info.kind === 'pass' && !info.dryRun) this.options.onPassFinished?.(info, folders);
    if (info.kind === 'pass' && !info.dryRun && (partial || info.shares.length < this.options.shares.length)) {
      this.lastJob = info;
    } else if (info.kind === 'pass' && !info.dryRun) {
      this.passes++;
      this.lastPass = info;
      const { intervalMs, retryDelayMs } = this.options;
      this.schedule(info.errors.length === 0 ? intervalMs : Math.min(intervalMs, retryDelayMs), 'timer');
    } else {
      this.lastJob = info;
      // Changes the post-write hook made during a rebuild went to the old index: a pass brings them over.
      if (info.kind === 'rebuild' && !info.dryRun && info.state === 'finished' && !this.stopped) this.submit({ kind: 'pass' }, 'rebuild');
    }
  }

  private async run(job: Job): Promise<void> {
    const { alias, log } = this.options;
    const { info, controller } = job;
    try {
      await this.options.index.prepare();
    } catch (error) {
      info.errors.push(`index ${alias}: ${describeSearchError(error).error}`);
      return;
    }
    const refusal = this.options.index.refusal();
    if (refusal !== null) {
      info.errors.push(`index ${alias}: ${refusal}`);
      return;
    }
    const targets = this.options.shares.filter((s) => info.shares.includes(s.share));
    // A pass of folders expects what it finds there; counting the whole share would say nothing about it.
    info.expected = job.folders === null ? await this.indexedCount(targets) : null;

    if (info.kind === 'rebuild' && !info.dryRun) {
      const rebuilt = await rebuildFromShares({
        manager: this.manager,
        bulk: this.options.bulk,
        shares: targets.map((target) => ({ ...target, source: this.options.source(target), counts: job.shareReport(target.share) })),
        concurrency: this.options.concurrency ?? DEFAULT_CONCURRENCY,
        lookahead: this.options.lookahead ?? DEFAULT_LOOKAHEAD,
        signal: controller.signal,
        onShare: (share) => (info.current = share),
        log,
      });
      info.rebuild = { from: rebuilt.from, to: rebuilt.to, documents: rebuilt.documents };
      info.walked = true;
      await this.options.index.prepare();
      return;
    }

    let wrote = false;
    for (const target of targets) {
      if (controller.signal.aborted) break;
      info.current = target.share;
      const report = job.shareReport(target.share);
      const started = Date.now();
      try {
        for (const folder of job.folders ?? ['']) {
          await runSharePass({
            ...target,
            folder,
            source: this.options.source(target),
            client: this.options.client,
            bulk: this.options.bulk,
            alias,
            dryRun: info.dryRun,
            force: info.kind !== 'pass',
            concurrency: this.options.concurrency ?? DEFAULT_CONCURRENCY,
            lookahead: this.options.lookahead ?? DEFAULT_LOOKAHEAD,
            signal: controller.signal,
            counts: report,
            log,
          });
        }
      } catch (error) {
        report.error = describeSearchError(error).error;
        info.errors.push(`share ${target.share}: ${report.error}`);
        if (isIndexFailure(error)) break;
      } finally {
        report.durationMs = Date.now() - started;
        wrote ||= report.indexed + report.removed > 0;
      }
    }
    info.walked = !controller.signal.aborted && info.errors.length === 0;
    // Make the result searchable now rather than at the next periodic refresh.
    if (!info.dryRun && wrote) await this.options.client.indices.refresh({ index: alias }).catch(() => undefined);
  }

  private async indexedCount(shares: ReconcilerShare[]): Promise<number | null> {
    try {
      const query = { bool: { should: shares.map(shareQuery), minimum_should_match: 1 } };
      const { count } = await this.options.client.count({ index: this.options.alias, query });
      return count;
    } catch {
      return null;
    }
  }
}
