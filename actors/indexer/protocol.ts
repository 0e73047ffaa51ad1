// The tasks of the indexer pool, which the reconciler starts and feeds (actors/indexer/task.ts handles exactly this
// union): pages rendered and written into Elasticsearch in `_bulk` batches.
import type { BatchResult, IndexOperation, WriteTarget } from '../../src/indexing/operations.js';

export type IndexerTask =
  | { type: 'ping' }
  /** One `_bulk` batch: its pages rendered (their bytes moved in with the task) and written into `target`. */
  | { type: 'write-batch'; target: WriteTarget; operations: IndexOperation[] };
export type IndexerResult =
  | { type: 'pong'; threadId: number }
  | { type: 'batch'; result: BatchResult };
