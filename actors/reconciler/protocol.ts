// What other actors tell the reconciler: the post-write hook. WebDAV sends
// one message per successful change that touches a `.wiki/*.md` file; the
// reconciler reads, renders and indexes the page off the request thread.
// And how busy the request path is: every front reports its event-loop delay
// on the reconciler's loop-delay board (src/pacing/loop-delay-board.ts), which
// paces the background work.
import type { PageChangeSink } from '../../src/wiki/page-change.js';

/** The post-write hook's and the live ACL check's page changes (src/wiki/page-change.ts), and the fronts' pacing board. */
export interface ReconcilerProtocol extends PageChangeSink {
  /** The loop-delay board of this incarnation, fetched once per incarnation by each front. */
  loopDelayBoard(): Promise<SharedArrayBuffer>;
}
