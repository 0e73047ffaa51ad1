// Tasks of the smb-reader pool (the reconciler actor owns it), declared once for both ends.
// The pool's task module handles exactly the union declared here.
import type { Config } from '../config/index.js';
import type { ChangedPageOutcome, DocumentOutcome, FolderListing, NameListing, PageFacts } from '../reconcile/listing.js';
import type { ServiceSecrets } from '../runtime/control.js';
import type { PageAddress } from '../wiki/page-change.js';

/** What every pool worker gets as workerData. */
export interface PoolWorkerData {
  config: Config;
  secrets: ServiceSecrets;
}

export type SmbReaderTask =
  | { type: 'ping' }
  /** The reconciler's walk: one folder, with the pages of its `.wiki/` (src/reconcile/share-folders.ts). */
  | { type: 'list-wiki-folder'; server: string; share: string; path: string }
  /** One page read and rendered for a pass or the post-write hook; a missing or unreadable page is an outcome, not an error. */
  | { type: 'load-page-document'; page: PageAddress; known?: PageFacts }
  /** The post-write hook's load: not read again while the page has the version the hook indexed last. */
  | { type: 'load-changed-page'; page: PageAddress; indexedVersion?: string }
  /** The names in one folder: the reconciler confirms deletions with it. */
  | { type: 'list-names'; server: string; share: string; path: string };
export type SmbReaderResult =
  | { type: 'pong'; threadId: number }
  | { type: 'wiki-folder'; listing: FolderListing }
  | { type: 'page-document'; outcome: DocumentOutcome }
  | { type: 'changed-page'; outcome: ChangedPageOutcome }
  | { type: 'names'; listing: NameListing };
