// What other actors tell the reconciler: the post-write hook. WebDAV sends
// one message per successful change that touches a `.wiki/*.md` file; the
// reconciler reads, renders and indexes the page off the request thread.
import type { PageChange } from '../wiki/page-change.js';

export interface ReconcilerProtocol {
  /** Queue the change; resolves once it is queued, not when it is indexed. */
  pageChanged(change: PageChange): Promise<void>;
}
