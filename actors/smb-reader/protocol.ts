// The tasks of the smb-reader pool, which the reconciler starts and feeds (actors/smb-reader/task.ts handles exactly
// this union): the walk's folder listings and the pages' bytes, read over SMB with the indexer's account.
import type { ChangedPageOutcome, FolderListing, NameListing, PageFacts, PageOutcome } from '../../src/indexing/listing.js';
import type { PageAddress } from '../../src/wiki/page-change.js';

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
