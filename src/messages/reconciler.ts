// What other actors tell the reconciler: the post-write hook. WebDAV sends
// one message per successful change that touches a `.wiki/*.md` file; the
// reconciler reads, renders and indexes the page off the request thread.

/** One page, addressed as the service sees it. Paths are share-relative with `/`. */
export interface PageAddress {
  server: string;
  share: string;
  path: string;
}

export type PageChange =
  | { type: 'page-written'; page: PageAddress }
  | { type: 'page-deleted'; page: PageAddress }
  | { type: 'page-moved'; from: PageAddress; to: PageAddress };

export interface ReconcilerProtocol {
  /** Queue the change; resolves once it is queued, not when it is indexed. */
  pageChanged(change: PageChange): Promise<void>;
}
