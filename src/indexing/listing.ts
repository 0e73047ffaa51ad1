/**
 * What the reconciler learns from a share, one folder at a time (the smb-reader pool answers; see
 * smb-reader/wiki-reads.ts), and one page it is about to index, as read. Folders and pages that cannot be read
 * are answers here, not errors: only failures of the connection itself are thrown.
 */
import type { DocumentAcl } from '../wiki/acl.js';
import { documentId } from '../wiki/document-id.js';
import type { PageAddress } from '../wiki/page-change.js';
import { versionToken } from '../wiki/version-token.js';

/** A folder or `.wiki/` folder that yielded no entries, and why. */
export type Unlisted =
  /** Gone (deleted while the walk ran): nothing below it exists. */
  | { state: 'missing' }
  /** The indexer account may not list it: nothing below it may be in the index. */
  | { state: 'denied' }
  /** Another answer of the server about this folder: what the index holds below it is left as it is. */
  | { state: 'failed'; error: string };

/**
 * What the listing learned of a page besides its name: all its document needs except the content. Of the security
 * descriptor only the read ACL the index keeps (deriveAcl) travels between the threads: a few SIDs, not the ACEs.
 */
export interface PageFacts {
  size: number;
  /** Modification time, ms since the epoch. */
  modified: number;
  acl: DocumentAcl;
}

/**
 * A page of a listing asked for with content (a forced reindex writes every page): its bytes, read in the same open
 * as its security descriptor, in an ArrayBuffer of their own. Absent when they could not be read so (a longer page,
 * a refusal, another program's open): the page is then read on its own.
 */
export interface ListedPageFacts extends PageFacts {
  content?: Uint8Array;
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
  facts: ListedPageFacts;
}

/** The page as read: its document's id and version token from its facts, and its bytes. */
export function readPageOf(page: PageAddress, facts: PageFacts, content: Uint8Array): ReadPage {
  return {
    page,
    id: documentId(page.server, page.share, page.path),
    version: versionToken(facts.size, new Date(facts.modified), facts.acl),
    facts,
    content,
  };
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

/** The page as its listing read it (ListedPageFacts with content); undefined when it is still to be read. */
export function listedPage(page: PageAddress, { content, ...facts }: ListedPageFacts): PageOutcome | undefined {
  return content === undefined ? undefined : { status: 'read', page: readPageOf(page, facts, content) };
}

/** One page read (bytes, stat and security descriptor), or why not. */
export type PageOutcome =
  | { status: 'read'; page: ReadPage }
  | { status: 'gone' }
  | { status: 'denied' }
  /** The server refused this file for another reason (e.g. a sharing violation), or it is too large; the next pass tries again. */
  | { status: 'failed'; error: string };

/** What the post-write hook asks for: the page, unless it still has the version the hook indexed last. */
export type ChangedPageOutcome = PageOutcome | { status: 'unchanged' };
