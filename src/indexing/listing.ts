/**
 * What the reconciler learns from a share, one folder at a time (the smb-reader pool answers; see
 * smb-reader/wiki-reads.ts), and one page it is about to index, as read. Folders and pages that cannot be read
 * are answers here, not errors: only failures of the connection itself are thrown.
 */
import type { SecurityDescriptor } from '../smb/index.js';
import type { PageAddress } from '../wiki/page-change.js';

/** A folder or `.wiki/` folder that yielded no entries, and why. */
export type Unlisted =
  /** Gone (deleted while the walk ran): nothing below it exists. */
  | { state: 'missing' }
  /** The indexer account may not list it: nothing below it may be in the index. */
  | { state: 'denied' }
  /** Another answer of the server about this folder: what the index holds below it is left as it is. */
  | { state: 'failed'; error: string };

/** What the listing learned of a page besides its name: all its document needs except the content. */
export interface PageFacts {
  size: number;
  /** Modification time, ms since the epoch. */
  modified: number;
  securityDescriptor: SecurityDescriptor;
}

/** A page as the smb-reader read it: everything its document needs, not yet rendered (the indexer renders it). */
export interface ReadPage {
  page: PageAddress;
  /** The document's `_id` and version token, known before rendering (the hook compares versions with them). */
  id: string;
  version: string;
  facts: PageFacts;
  /** The page's bytes, in an ArrayBuffer of their own (so that they can be moved to another thread). */
  content: Uint8Array;
}

/** A page of a `.wiki/` folder with the version token the index is compared with. */
export interface PageVersion {
  /** File name, `*.md`. */
  name: string;
  version: string;
  facts: PageFacts;
}

export type WikiDirListing =
  | {
      state: 'listed';
      pages: PageVersion[];
      /** Names of pages whose security descriptor the indexer account may not read. */
      unreadable: string[];
    }
  | Unlisted;

/** A regular folder: its sub-folders (without `.wiki`) and, when it has one, its `.wiki/` folder's pages. */
export type FolderListing =
  | { state: 'listed'; folders: string[]; wiki: { name: string; listing: WikiDirListing } | null }
  | Unlisted;

/** The names in a folder, to confirm that pages are gone. */
export type NameListing = { state: 'listed'; names: string[] } | Unlisted;

/** One page read (bytes, stat and security descriptor), or why not. */
export type PageOutcome =
  | { status: 'read'; page: ReadPage }
  | { status: 'gone' }
  | { status: 'denied' }
  /** The server refused this file for another reason (e.g. a sharing violation), or it is too large; the next pass tries again. */
  | { status: 'failed'; error: string };

/** What the post-write hook asks for: the page, unless it still has the version the hook indexed last. */
export type ChangedPageOutcome = PageOutcome | { status: 'unchanged' };
