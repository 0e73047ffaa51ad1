/**
 * The one writer of wiki documents to Elasticsearch (passes, the post-write hook and rebuilds all use it): it
 * collects operations into batches (by count and by bytes) and hands each to a BulkWriter (the indexer pool in
 * the service, which renders the pages and sends the `_bulk`), with a few batches in flight, and back-pressure
 * instead of dropping: index(), upsert() and delete() wait while the batches in flight are at the limit, so a pass
 * goes as fast as the indexers and Elasticsearch take documents and holds only a bounded number of pages.
 * A batch that cannot be delivered fails the writer: every later call throws that error, and the pass stops.
 */
import type { ReadPage } from '../listing.js';
import { operationBytes, type BatchCounts, type BulkWriter, type IndexOperation, type WriteTarget } from '../operations.js';
import type { Logger } from '../../common/logger.js';

/** A document as it is: its id and the JSON text of its `_source`. */
export interface SourceDocument {
  id: string;
  source: string;
}

interface IndexWriterOptions {
  bulk: BulkWriter;
  target: WriteTarget;
  /** Operations per batch; default 500. */
  maxOperations?: number;
  /** Approximate size of a batch's pages and documents; default 5 MiB. */
  maxBytes?: number;
  /** Batches sent at once; default 2. */
  maxInFlight?: number;
  /** Told what each delivered batch did. */
  onDelivered?: (counts: BatchCounts) => void;
  log: Logger;
}

export interface IndexWriterCounts {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch refused one by one (logged). */
  rejected: number;
  /** Pages the indexer could not render. */
  notRendered: number;
}

/** The index could not take a batch (unreachable, overloaded, the alias gone). */
export class IndexWriteError extends Error {
  override readonly name = 'IndexWriteError';
}

export class IndexWriter {
  readonly counts: IndexWriterCounts = { upserted: 0, deleted: 0, rejected: 0, notRendered: 0 };
  private readonly bulk: BulkWriter;
  private readonly target: WriteTarget;
  /** Named in errors and the log. */
  private readonly targetName: string;
  private readonly maxOperations: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly onDelivered: (counts: BatchCounts) => void;
  private readonly log: Logger;
  private batch: IndexOperation[] = [];
  private batchBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: IndexWriteError | undefined;

  constructor(options: IndexWriterOptions) {
    this.bulk = options.bulk;
    this.target = options.target;
    this.targetName = 'alias' in options.target ? options.target.alias : options.target.index;
    this.maxOperations = options.maxOperations ?? 500;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.onDelivered = options.onDelivered ?? (() => undefined);
    this.log = options.log;
  }

  /** Renders the page (in the indexer) and writes its document. */
  index(page: ReadPage): Promise<void> {
    return this.add({ op: 'render', page });
  }

  /** Writes the document `id` whose `_source` is the JSON text `source` (replacing what the index holds). */
  upsert(id: string, source: string): Promise<void> {
    return this.add({ op: 'source', id, source });
  }

  delete(id: string): Promise<void> {
    return this.add({ op: 'delete', id });
  }

  /** Sends what is pending and waits for every batch; throws if any could not be delivered. */
  async flush(): Promise<void> {
    this.send();
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.check();
  }

  private async add(operation: IndexOperation): Promise<void> {
    this.check();
    this.batch.push(operation);
    this.batchBytes += operationBytes(operation);
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

  private async deliver(batch: IndexOperation[]): Promise<void> {
    let result;
    try {
      result = await this.bulk.write(this.target, batch);
    } catch (error) {
      // The indexer itself failed (a pool thread that died): as undeliverable as an unreachable index.
      result = { failed: error instanceof Error ? error.message : String(error) };
    }
    if ('failed' in result) {
      this.failure ??= new IndexWriteError(`writing to ${this.targetName} failed: ${result.failed}`);
      return;
    }
    const counts = result.written;
    this.counts.upserted += counts.upserted;
    this.counts.deleted += counts.deleted;
    this.counts.rejected += counts.rejected;
    this.counts.notRendered += counts.notRendered.length;
    this.onDelivered(counts);
    if (counts.rejected > 0) this.log.warn({ index: this.targetName, rejected: counts.rejected, reasons: counts.reasons }, 'search index rejected documents');
  }
}
