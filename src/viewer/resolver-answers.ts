// This thread's copy of the ldap-resolver's viewer answers (src/viewer/viewer-cache.ts): who a wiki caller is, and
// whom a trusted caller names in X-Service-User, which the wiki routes and WebDAV (src/webdav/methods/service.ts) both ask.
import type { PeerLink } from '../runtime/actor.js';
import { PeerMemory } from '../runtime/peer-memory.js';
import type { Remote } from '../runtime/rpc.js';
import { ViewerAnswerCache } from './viewer-cache.js';
import type { ReusableViewerAnswer, ViewerQuery } from './viewer.js';

/** What the wiki and WebDAV ask of the thread that resolves viewers (the ldap-resolver serves it). */
export interface ViewerSource {
  /** Who a wiki caller is, and until when a front may reuse the answer (src/viewer/viewer-cache.ts). */
  viewer(query: ViewerQuery): Promise<ReusableViewerAnswer>;
  /** The memory whose generation word grows with every change of the wiki visibility (VISIBILITY_GENERATION). */
  viewerEpoch(): Promise<SharedArrayBuffer>;
}

/** A cache of the answers of the ldap-resolver reached through `resolver`, whose link is `link`. */
export function resolverViewerCache(resolver: Remote<ViewerSource>, link: PeerLink): ViewerAnswerCache {
  const epoch = new PeerMemory({ peer: 'ldap-resolver', link, fetch: async () => new Int32Array(await resolver.viewerEpoch()) });
  return new ViewerAnswerCache({ epoch: () => epoch.get(), resolve: (query) => resolver.viewer(query) });
}
