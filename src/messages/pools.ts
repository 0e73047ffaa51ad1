// Tasks of the reconciler's two pools, the smb-reader pool and the indexer pool, declared once for both ends.
// Each pool's task module handles exactly the union declared here.
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

export type SmbReaderTask =
  | { type: 'ping' }
  /** The reconciler's walk: one folder, with the pages of its `.wiki/` (src/indexing/smb-reader/wiki-reads.ts). */
  | { type: 'list-wiki-folder'; server: string; share: string; path: string }
  /** One page's bytes (moved back, not copied) for a pass; a missing or unreadable page is an outcome, not an error. */
  | { type: 'read-page'; page: PageAddress; known?: PageFacts }
  /** The post-write hook's read: not read again while the page has the version the hook indexed last. */
  | { type: 'read-changed-page'; page: PageAddress; indexedVersion?: string }
  /** The names in one folder: the reconciler confirms deletions with it. */
  | { type: 'list-names'; server: string; share: string; path: string };
export type SmbReaderResult =
  | { type: 'pong'; threadId: number }
  | { type: 'wiki-folder'; listing: FolderListing }
  | { type: 'page'; outcome: PageOutcome }
  | { type: 'changed-page'; outcome: ChangedPageOutcome }
  | { type: 'names'; listing: NameListing };

export type IndexerTask =
  | { type: 'ping' }
  /** One `_bulk` batch: its pages rendered (their bytes moved in with the task) and written into `target`. */
  | { type: 'write-batch'; target: WriteTarget; operations: IndexOperation[] };
export type IndexerResult =
  | { type: 'pong'; threadId: number }
  | { type: 'batch'; result: BatchResult };
