// Tasks the supervisor's worker pools run, declared once for both ends.
// Each pool's task module handles exactly the union declared for it here.
import type { Config } from '../config/index.js';
import type { DocumentOutcome, FolderListing, NameListing, PageFacts } from '../reconcile/listing.js';
import type { ServiceSecrets } from '../runtime/control.js';
import type { SecurityDescriptor } from '../smb/security-descriptor.js';
import type { WikiDocument, WikiPageSource } from '../wiki/document.js';
import type { PageAddress } from './reconciler.js';

/** What every pool worker gets as workerData. */
export interface PoolWorkerData {
  config: Config;
  secrets: ServiceSecrets;
}

/** A wiki page as the indexer account reads it over SMB. */
export interface PageRead {
  content: Uint8Array;
  size: number;
  modified: Date;
  securityDescriptor: SecurityDescriptor;
}

/** A page found by walking a share, with the version token the index is compared with. */
export interface ListedPage {
  path: string;
  version: string;
}

/** Every wiki page of a share. */
export interface WikiListing {
  pages: ListedPage[];
  /** Pages whose security descriptor the indexer account may not read; left out of `pages`. */
  unreadable: string[];
}

export type SmbReaderTask =
  | { type: 'ping' }
  /** Content, stat and security descriptor of one page. */
  | { type: 'read-page'; page: PageAddress }
  /** Every `.wiki/*.md` of a share. */
  | { type: 'list-pages'; server: string; share: string }
  /** The reconciler's walk: one folder, with the pages of its `.wiki/` (src/reconcile/share-folders.ts). */
  | { type: 'list-wiki-folder'; server: string; share: string; path: string }
  /** One page read and rendered for the reconciler; a missing or unreadable page is an outcome, not an error. */
  | { type: 'load-page-document'; page: PageAddress; known?: PageFacts }
  /** The names in one folder: the reconciler confirms deletions with it. */
  | { type: 'list-names'; server: string; share: string; path: string };
export type SmbReaderResult =
  | { type: 'pong'; threadId: number }
  /** `page` is null when the file does not exist (deleted meanwhile). */
  | { type: 'page'; page: PageRead | null }
  | { type: 'page-list'; listing: WikiListing }
  | { type: 'wiki-folder'; listing: FolderListing }
  | { type: 'page-document'; outcome: DocumentOutcome }
  | { type: 'names'; listing: NameListing };

export type IndexerTask =
  | { type: 'ping' }
  /** Markdown and ACL of one page turned into its index document. */
  | { type: 'render-page'; source: WikiPageSource };
export type IndexerResult =
  | { type: 'pong'; threadId: number }
  | { type: 'document'; document: WikiDocument };

/** Narrows a pool result to the kind the task asked for; anything else is a bug in the task module. */
export function resultOf<R extends { type: string }, K extends R['type']>(result: R, type: K): Extract<R, { type: K }> {
  if (result.type !== type) throw new Error(`pool task answered '${result.type}' where '${type}' was expected`);
  return result as Extract<R, { type: K }>;
}
