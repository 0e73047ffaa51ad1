/**
 * What the reconciler hands the indexer pool: batches of operations on one index. A page travels as the bytes the
 * smb-reader read (moved between threads, never copied) with what its listing learned; the indexer renders it.
 */
import type { PageAddress } from '../wiki/page-change.js';
import type { ReadPage } from './listing.js';

export type IndexOperation =
  /** Render the page into its document and write it. */
  | { op: 'render'; page: ReadPage }
  /** Write a document as it is: the JSON text of its `_source` (a rebuild's copy of other proxies' documents). */
  | { op: 'source'; id: string; source: string }
  | { op: 'delete'; id: string };

/**
 * Where the documents go: through the alias (Elasticsearch must refuse should it be gone, instead of creating an
 * index), or into one concrete index (a rebuild filling its new index before the alias moves to it).
 */
export type WriteTarget = { alias: string } | { index: string };

/** A page the indexer could not render (its document is not written). */
export interface NotRendered {
  page: PageAddress;
  error: string;
}

/** What one `_bulk` batch did. */
export interface BatchCounts {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch refused one by one. */
  rejected: number;
  /** First few reasons of the refusals, for the log. */
  reasons: string[];
  notRendered: NotRendered[];
}

/** How often Elasticsearch pushed a batch back (429) and the indexer sent it again (src/indexing/indexer/send-bulk.ts). */
export interface PushBackCounts {
  /** Waits before sending again. */
  backOffs: number;
  /** Operations sent again. */
  resent: number;
}

/**
 * A batch written, or why Elasticsearch did not take it (unreachable, overloaded for longer than the indexer waits,
 * the alias gone); with how often it was pushed back on the way, when the indexer says.
 */
export type BatchResult = ({ written: BatchCounts } | { failed: string }) & { pushedBack?: PushBackCounts };

/** Writes one batch: the indexer pool in the service, or this thread (writeBatch) in tools and tests. */
export interface BulkWriter {
  write(target: WriteTarget, operations: IndexOperation[]): Promise<BatchResult>;
}

/** The buffers of a batch's pages, to move with it to another thread. */
export function transferListOf(operations: readonly IndexOperation[]): ArrayBuffer[] {
  return operations.flatMap((operation) => (operation.op === 'render' ? [operation.page.content.buffer as ArrayBuffer] : []));
}

/** Bytes an operation adds to a batch, about. */
export function operationBytes(operation: IndexOperation): number {
  switch (operation.op) {
    case 'render':
      return operation.page.content.byteLength;
    case 'source':
      return operation.source.length;
    case 'delete':
      return operation.id.length;
  }
}
