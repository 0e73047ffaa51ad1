// Which post-write hook messages a change sends: one per `.wiki/*.md` page
// it wrote, deleted or moved (a move out of or into the wiki layout is a
// delete or a write for the index).
import { isWikiPage } from '../wiki/layout.js';
import type { PageChange } from '../wiki/page-change.js';

export function pageWritten(server: string, share: string, path: string): PageChange[] {
  return isWikiPage(path) ? [{ type: 'page-written', page: { server, share, path } }] : [];
}

export function pageDeleted(server: string, share: string, path: string): PageChange[] {
  return isWikiPage(path) ? [{ type: 'page-deleted', page: { server, share, path } }] : [];
}

export function pageMoved(server: string, share: string, from: string, to: string): PageChange[] {
  const wasPage = isWikiPage(from);
  const isPage = isWikiPage(to);
  if (wasPage && isPage) return [{ type: 'page-moved', from: { server, share, path: from }, to: { server, share, path: to } }];
  if (wasPage) return pageDeleted(server, share, from);
  return isPage ? pageWritten(server, share, to) : [];
}
