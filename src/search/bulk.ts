/**
 * Batched writes of wiki documents into the index (post-write hook, reconciler, reindex).
 *
 * Operations collect in one pending batch (keyed by document id, so the last operation on a page wins) that is
 * sent when it holds `maxOperations` or `flushIntervalMs` after its first operation. Per the spec the writer
 * buffers nothing for an unavailable Elasticsearch: a batch that cannot be delivered is dropped and counted, and
 * while a batch is in flight and the next one is full, further operations are dropped and counted as well.
 * The drift reconciler indexes whatever was dropped on its next run.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import type { WikiDocument } from '../wiki/document.js';
import { DEFAULT_ALIAS } from './mapping.js';
import { describeError, silentLog, type SearchLog } from './log.js';

export type BulkOperation = { action: 'upsert'; doc: WikiDocument } | { action: 'delete'; id: string };

function operationId(op: BulkOperation): string {
  return op.action === 'upsert' ? op.doc.id : op.id;
}

/** The `_source` of a document: everything but the id, which is the `_id`. */
export function documentSource(doc: WikiDocument): Omit<WikiDocument, 'id'> {
  const { id: _id, ...source } = doc;
  return source;
}

type BulkLines = NonNullable<estypes.BulkRequest<Omit<WikiDocument, 'id'>>['operations']>;

/** The request lines of a `_bulk` call: upserts replace the whole document. */
export function bulkRequestLines(ops: Iterable<BulkOperation>): BulkLines {
  const lines: BulkLines = [];
  for (const op of ops) {
    if (op.action === 'upsert') lines.push({ index: { _id: op.doc.id } }, documentSource(op.doc));
    else lines.push({ delete: { _id: op.id } });
  }
  return lines;
}

export interface BulkItemCounts {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch rejected one by one (mapping errors, rejections). */
  failed: number;
  /** First few rejection reasons, for the log. */
  reasons: string[];
}

/** Counts a `_bulk` response; deleting a document that is not there counts as deleted. */
export function countBulkItems(response: estypes.BulkResponse): BulkItemCounts {
  const counts: BulkItemCounts = { upserted: 0, deleted: 0, failed: 0, reasons: [] };
  for (const item of response.items) {
    const [action, result] = Object.entries(item)[0] as [string, estypes.BulkResponseItem];
    if (result.error && !(action === 'delete' && result.status === 404)) {
      counts.failed++;
      if (counts.reasons.length < 3) counts.reasons.push(`${result._id}: ${result.error.type} ${result.error.reason ?? ''}`);
    } else if (action === 'delete') counts.deleted++;
    else counts.upserted++;
  }
  return counts;
}

export interface BulkIndexerOptions {
  client: Client;
  /** Alias written to (it must exist: writes require an alias); default `wiki-md`. */
  index?: string;
  /** Operations per batch; default 500. */
  maxOperations?: number;
  /** Longest time an operation waits for its batch to be sent; default 1000 ms. */
  flushIntervalMs?: number;
  /** Passed to `_bulk`: `wait_for` makes writes visible to search before flush() resolves; default false. */
  refresh?: boolean | 'wait_for';
  log?: SearchLog;
}

export interface BulkStats {
  upserted: number;
  deleted: number;
  failed: number;
  /** Operations never delivered: Elasticsearch unreachable or erroring, or the writer already full. */
  dropped: number;
  batches: number;
}

export class BulkIndexer {
  private readonly client: Client;
  private readonly index: string;
  private readonly maxOperations: number;
  private readonly flushIntervalMs: number;
  private readonly refresh: boolean | 'wait_for';
  private readonly log: SearchLog;
  private pending = new Map<string, BulkOperation>();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;
  private readonly counters: BulkStats = { upserted: 0, deleted: 0, failed: 0, dropped: 0, batches: 0 };

  constructor(options: BulkIndexerOptions) {
    this.client = options.client;
    this.index = options.index ?? DEFAULT_ALIAS;
    this.maxOperations = options.maxOperations ?? 500;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.refresh = options.refresh ?? false;
    this.log = options.log ?? silentLog;
    if (!Number.isInteger(this.maxOperations) || this.maxOperations < 1) {
      throw new RangeError(`maxOperations must be a positive integer, got ${this.maxOperations}`);
    }
  }

  upsert(doc: WikiDocument): void {
    this.add({ action: 'upsert', doc });
  }

  delete(id: string): void {
    this.add({ action: 'delete', id });
  }

  get stats(): Readonly<BulkStats> {
    return { ...this.counters };
  }

  /** Operations waiting for the next batch. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private add(op: BulkOperation): void {
    const id = operationId(op);
    const full = this.pending.size >= this.maxOperations && !this.pending.has(id);
    if (this.closed || full) {
      this.counters.dropped++;
      return;
    }
    this.pending.set(id, op);
    if (this.pending.size >= this.maxOperations) {
      if (this.inFlight === undefined) void this.flush();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Sends everything pending (after a batch already in flight); resolves when it is delivered or dropped. */
  async flush(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = undefined;
    });
    await this.inFlight;
    // Operations that arrived while the batch was in flight and filled the next batch are sent right away.
    if (this.pending.size >= this.maxOperations) await this.flush();
  }

  /** Flushes and stops; operations added afterwards are dropped. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private async send(batch: BulkOperation[]): Promise<void> {
    this.counters.batches++;
    try {
      const response = await this.client.bulk({
        index: this.index,
        operations: bulkRequestLines(batch),
        refresh: this.refresh,
        // Writes go through the alias; should it be missing (a wiped cluster), Elasticsearch must reject them
        // instead of auto-creating a concrete index under the alias name.
        require_alias: true,
      });
      const counts = countBulkItems(response);
      this.counters.upserted += counts.upserted;
      this.counters.deleted += counts.deleted;
      this.counters.failed += counts.failed;
      if (counts.failed > 0) {
        this.log.warn({ index: this.index, failed: counts.failed, reasons: counts.reasons }, 'search index rejected documents');
      }
    } catch (error) {
      this.counters.dropped += batch.length;
      this.log.warn({ index: this.index, dropped: batch.length, ...describeError(error) }, 'search index unavailable, batch dropped');
    }
  }
}
