// The tasks of the smb-reader pool, which the reconciler starts and feeds (actors/smb-reader/task.ts answers each
// kind with its own result, PoolProtocol): the walk's folder listings and the pages' bytes, read over SMB with the
// indexer's account.
import type { ChangedPageOutcome, FolderListing, NameListing, PageFacts, PageOutcome } from '../../src/indexing/listing.js';
import type { PageAddress } from '../../src/wiki/page-change.js';

/** The smb-reader pool's tasks, each with what it answers. */
export type SmbReaderTasks = {
  /** Whether the thread runs: the thread's id. */
  'ping': { task: Record<never, never>; result: { threadId: number } };
  /**
   * The reconciler's walk: some folders of one share, each with the pages of its `.wiki/`
   * (src/indexing/smb-reader/wiki-reads.ts), listed at once and answered in one message, a listing per path; with
   * `withContent` (a forced reindex) their bytes too, moved back, not copied.
   */
  'list-wiki-folders': { task: { server: string; share: string; paths: string[]; withContent?: boolean }; result: FolderListing[] };
  /** One page's bytes (moved back, not copied) for a pass; a missing or unreadable page is an outcome, not an error. */
  'read-page': { task: { page: PageAddress; known?: PageFacts }; result: PageOutcome };
  /** The post-write hook's read: not read again while the page has the version the hook indexed last. */
  'read-changed-page': { task: { page: PageAddress; indexedVersion?: string }; result: ChangedPageOutcome };
  /** The names in one folder: the reconciler confirms deletions with it. */
  'list-names': { task: { server: string; share: string; path: string }; result: NameListing };
};
