// Tasks of the reconciler's two pools, the smb-reader pool and the indexer pool, declared once for both ends.
// Each pool's task module handles exactly the kinds declared here, each answering its own result (PoolProtocol).
import type { Config } from '../config/index.js';
import type { ChangedPageOutcome, FolderListing, NameListing, PageFacts, PageOutcome } from '../indexing/listing.js';
import type { BatchResult, IndexOperation, WriteTarget } from '../indexing/operations.js';
import type { ServiceSecrets } from '../runtime/control.js';
import type { PageAddress } from '../wiki/page-change.js';

/** What every pool worker gets as workerData. */
export interface PoolWorkerData {
  config: Config;
  secrets: ServiceSecrets;
}

/** The smb-reader pool's tasks (actors/smb-reader/task.ts), each with what it answers. */
export type SmbReaderTasks = {
  /** Whether the thread runs: the thread's id. */
  'ping': { task: Record<never, never>; result: { threadId: number } };
  /** The reconciler's walk: one folder, with the pages of its `.wiki/` (src/indexing/smb-reader/wiki-reads.ts). */
  'list-wiki-folder': { task: { server: string; share: string; path: string }; result: FolderListing };
  /** One page's bytes (moved back, not copied) for a pass; a missing or unreadable page is an outcome, not an error. */
  'read-page': { task: { page: PageAddress; known?: PageFacts }; result: PageOutcome };
  /** The post-write hook's read: not read again while the page has the version the hook indexed last. */
  'read-changed-page': { task: { page: PageAddress; indexedVersion?: string }; result: ChangedPageOutcome };
  /** The names in one folder: the reconciler confirms deletions with it. */
  'list-names': { task: { server: string; share: string; path: string }; result: NameListing };
};

/** The indexer pool's tasks (actors/indexer/task.ts), each with what it answers. */
export type IndexerTasks = {
  'ping': { task: Record<never, never>; result: { threadId: number } };
  /** One `_bulk` batch: its pages rendered (their bytes moved in with the task) and written into `target`. */
  'write-batch': { task: { target: WriteTarget; operations: IndexOperation[] }; result: BatchResult };
};
