// This thread's copy of the ldap-resolver's viewer answers (src/viewer/viewer-cache.ts): who a wiki caller is, and
// whom a trusted caller names in X-Service-User, which the wiki routes and WebDAV (src/webdav/methods/service.ts) both ask.
import type { LdapResolverProtocol } from '../../actors/ldap-resolver/protocol.js';
import type { PeerLink } from '../runtime/actor.js';
import { PeerMemory } from '../runtime/peer-memory.js';
import type { Remote } from '../runtime/rpc.js';
import { ViewerAnswerCache } from './viewer-cache.js';

/** A cache of the answers of the ldap-resolver reached through `resolver`, whose link is `link`. */
export function resolverViewerCache(resolver: Remote<LdapResolverProtocol>, link: PeerLink): ViewerAnswerCache {
  const epoch = new PeerMemory({ peer: 'ldap-resolver', link, fetch: async () => new Int32Array(await resolver.viewerEpoch()) });
  return new ViewerAnswerCache({ epoch: () => epoch.get(), resolve: (query) => resolver.viewer(query) });
}
