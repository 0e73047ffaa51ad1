// A wiki page as the service addresses it, and what a WebDAV change did to one: the post-write hook's message
// (src/webdav/wiki-hook.ts sends it, src/indexing/reconciler/page-changes.ts applies it to the index).

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

/** What a WebDAV change and a stale search hit tell the thread that keeps the index (the reconciler serves it). */
export interface PageChangeSink {
  /** Queue the change; resolves once it is queued, not when it is indexed. */
  pageChanged(change: PageChange): Promise<void>;
}
