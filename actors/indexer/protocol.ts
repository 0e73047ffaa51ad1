// The tasks of the indexer pool, which the reconciler starts and feeds (actors/indexer/task.ts answers each kind with
// its own result, PoolProtocol): pages rendered and written into Elasticsearch in `_bulk` batches.
import type { BatchResult, IndexOperation, WriteTarget } from '../../src/indexing/operations.js';

/** The indexer pool's tasks, each with what it answers. */
export type IndexerTasks = {
  /** Whether the thread runs: the thread's id. */
  'ping': { task: Record<never, never>; result: { threadId: number } };
  /** One `_bulk` batch: its pages rendered (their bytes moved in with the task) and written into `target`. */
  'write-batch': { task: { target: WriteTarget; operations: IndexOperation[] }; result: BatchResult };
};
