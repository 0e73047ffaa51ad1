/**
 * The reconciler's writes to the index: `_bulk` batches (by count and by bytes) with a few in flight, and
 * back-pressure instead of dropping: upsert() and delete() wait while the batches in flight are at the limit,
 * so a pass goes as fast as Elasticsearch takes documents and holds only a bounded number of them.
 * (The post-write hook's writer, src/search/bulk.ts, drops instead: it must never hold a request.)
 * A batch that cannot be delivered fails the writer: every later call throws that error, and the pass stops.
 */
import type { Client } from '@elastic/elasticsearch';
import { bulkRequestLines, countBulkItems, type BulkOperation } from '../search/bulk.js';
import { describeError, type SearchLog } from '../search/log.js';
import type { WikiDocument } from '../wiki/document.js';

export interface IndexWriterOptions {
  client: Client;
  /** The alias written through. */
  alias: string;
  /** Operations per batch; default 500. */
  maxOperations?: number;
  /** Approximate request size per batch; default 5 MiB. */
  maxBytes?: number;
  /** Batches sent at once; default 2. */
  maxInFlight?: number;
  /** Told what each delivered batch did. */
  onDelivered?: (counts: IndexWriterCounts) => void;
  log: SearchLog;
}

export interface IndexWriterCounts {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch refused one by one (logged). */
  rejected: number;
}

/** The index could not take a batch (unreachable, overloaded, the alias gone). */
export class IndexWriteError extends Error {
  override readonly name = 'IndexWriteError';
}

/** Room for the action line and JSON punctuation of one operation. */
const OPERATION_OVERHEAD = 200;

function approximateBytes(doc: WikiDocument): number {
  return OPERATION_OVERHEAD + 2 * (doc.body.length + doc.title.length + doc.path.length) + 100 * doc.acl_allow.length;
}

export class IndexWriter {
  readonly counts: IndexWriterCounts = { upserted: 0, deleted: 0, rejected: 0 };
  private readonly client: Client;
  private readonly alias: string;
  private readonly maxOperations: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly onDelivered: (counts: IndexWriterCounts) => void;
  private readonly log: SearchLog;
  private batch: BulkOperation[] = [];
  private batchBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: IndexWriteError | undefined;

  constructor(options: IndexWriterOptions) {
    this.client = options.client;
    this.alias = options.alias;
    this.maxOperations = options.maxOperations ?? 500;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.onDelivered = options.onDelivered ?? (() => undefined);
    this.log = options.log;
  }

  upsert(doc: WikiDocument): Promise<void> {
    return this.add({ action: 'upsert', doc }, approximateBytes(doc));
  }

  delete(id: string): Promise<void> {
    return this.add({ action: 'delete', id }, OPERATION_OVERHEAD);
  }

  /** Sends what is pending and waits for every batch; throws if any could not be delivered. */
  async flush(): Promise<void> {
    this.send();
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.check();
  }

  private async add(op: BulkOperation, bytes: number): Promise<void> {
    this.check();
    this.batch.push(op);
    this.batchBytes += bytes;
    if (!this.full()) return;
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
    this.check();
    // Several callers may have waited for the same full batch; the first one sends it.
    if (this.full()) this.send();
  }

  private full(): boolean {
    return this.batch.length >= this.maxOperations || this.batchBytes >= this.maxBytes;
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private send(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    const sending = this.deliver(batch).finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private async deliver(batch: BulkOperation[]): Promise<void> {
    try {
      const response = await this.client.bulk({ index: this.alias, operations: bulkRequestLines(batch), require_alias: true });
      const counts = countBulkItems(response);
      this.counts.upserted += counts.upserted;
      this.counts.deleted += counts.deleted;
      this.counts.rejected += counts.failed;
      this.onDelivered({ upserted: counts.upserted, deleted: counts.deleted, rejected: counts.failed });
      if (counts.failed > 0) this.log.warn({ index: this.alias, rejected: counts.failed, reasons: counts.reasons }, 'search index rejected documents');
    } catch (error) {
      this.failure ??= new IndexWriteError(`writing to ${this.alias} failed: ${describeError(error).error}`, { cause: error });
    }
  }
}
