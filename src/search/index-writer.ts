/**
 * The one writer of wiki documents to Elasticsearch (passes, the post-write hook and rebuilds all use it): `_bulk`
 * batches (by count and by bytes) with a few in flight, and back-pressure instead of dropping: upsert() and
 * delete() wait while the batches in flight are at the limit, so a pass goes as fast as Elasticsearch takes
 * documents and holds only a bounded number of them.
 * A batch that cannot be delivered fails the writer: every later call throws that error, and the pass stops.
 * Documents arrive as the JSON text of their `_source` (rendered and serialised in the pool thread that read the
 * page), so the request body is put together by concatenation.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { describeError } from '../common/describe-error.js';
import type { Logger } from '../common/logger.js';
import { countBulkItems } from './bulk.js';

/**
 * Where the documents go: through the alias (Elasticsearch must refuse should it be gone, instead of creating an
 * index), or into one concrete index (a rebuild filling its new index before the alias moves to it).
 */
export type WriteTarget = { alias: string } | { index: string };

/** A document as the writer takes it: its id and the JSON text of its `_source`. */
export interface SourceDocument {
  id: string;
  source: string;
}

export interface IndexWriterOptions {
  client: Client;
  target: WriteTarget;
  /** Operations per batch; default 500. */
  maxOperations?: number;
  /** Approximate request size per batch; default 5 MiB. */
  maxBytes?: number;
  /** Batches sent at once; default 2. */
  maxInFlight?: number;
  /** Told what each delivered batch did. */
  onDelivered?: (counts: IndexWriterCounts) => void;
  log: Logger;
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

/** The NDJSON lines of one operation. */
function indexLines(id: string, source: string): string {
  return `{"index":{"_id":${JSON.stringify(id)}}}\n${source}\n`;
}

function deleteLine(id: string): string {
  return `{"delete":{"_id":${JSON.stringify(id)}}}\n`;
}

export class IndexWriter {
  readonly counts: IndexWriterCounts = { upserted: 0, deleted: 0, rejected: 0 };
  private readonly client: Client;
  private readonly path: string;
  private readonly querystring: Record<string, string>;
  /** Named in errors and the log. */
  private readonly targetName: string;
  private readonly maxOperations: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly onDelivered: (counts: IndexWriterCounts) => void;
  private readonly log: Logger;
  private batch: string[] = [];
  private batchBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: IndexWriteError | undefined;

  constructor(options: IndexWriterOptions) {
    this.client = options.client;
    this.targetName = 'alias' in options.target ? options.target.alias : options.target.index;
    this.path = `/${encodeURIComponent(this.targetName)}/_bulk`;
    this.querystring = 'alias' in options.target ? { require_alias: 'true' } : {};
    this.maxOperations = options.maxOperations ?? 500;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.onDelivered = options.onDelivered ?? (() => undefined);
    this.log = options.log;
  }

  /** Writes the document `id` whose `_source` is the JSON text `source` (replacing what the index holds). */
  upsert(id: string, source: string): Promise<void> {
    return this.add(indexLines(id, source));
  }

  delete(id: string): Promise<void> {
    return this.add(deleteLine(id));
  }

  /** Sends what is pending and waits for every batch; throws if any could not be delivered. */
  async flush(): Promise<void> {
    this.send();
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.check();
  }

  private async add(lines: string): Promise<void> {
    this.check();
    this.batch.push(lines);
    this.batchBytes += lines.length;
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

  private async deliver(batch: string[]): Promise<void> {
    try {
      const response = (await this.client.transport.request({
        method: 'POST',
        path: this.path,
        querystring: this.querystring,
        bulkBody: batch.join(''),
      })) as estypes.BulkResponse;
      const counts = countBulkItems(response);
      this.counts.upserted += counts.upserted;
      this.counts.deleted += counts.deleted;
      this.counts.rejected += counts.failed;
      this.onDelivered({ upserted: counts.upserted, deleted: counts.deleted, rejected: counts.failed });
      if (counts.failed > 0) this.log.warn({ index: this.targetName, rejected: counts.failed, reasons: counts.reasons }, 'search index rejected documents');
    } catch (error) {
      this.failure ??= new IndexWriteError(`writing to ${this.targetName} failed: ${describeError(error).error}`, { cause: error });
    }
  }
}
