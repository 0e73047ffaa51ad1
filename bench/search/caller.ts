/**
 * Who searches in the search benches: anna with two of her groups in X-Service-Groups, and what the service sends
 * Elasticsearch for her, so that a peer can be asked exactly the same.
 */
import { parseSearchRequest, searchBodyJson, type Viewer } from '../../src/search/query.js';
import { tokenSidSet, userSidSet } from '../../src/viewer/principal.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { groupsHeader } from '../../test/integration/wiki/wiki-service.js';

export const CALLER = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };

/** BUILTIN\Users: in the token of every domain user of the testbed DC (tokenGroups), so in the service's deny list. */
const BUILTIN_USERS_SID = 'S-1-5-32-545';

/** The headers of the caller's `POST /wiki/search`. */
export function callerHeaders(env: TestbedEnv): { authorization: string; groups: string } {
  const { password } = env.users[CALLER.user]!;
  return { authorization: `Basic ${Buffer.from(`${CALLER.user}:${password}`).toString('base64')}`, groups: groupsHeader(CALLER.groups) };
}

/** The caller as the service sees them on `share`, by its documented rule: allow for the user and the header's groups, deny for the whole token. */
export function callerViewer(env: TestbedEnv, share: string): Viewer {
  const user = env.users[CALLER.user]!;
  const groupSids = [...CALLER.groups.map((g) => env.groups[g]!), env.groups['Domain Users']!];
  return {
    allowSids: userSidSet({ userSid: user.sid, groupSids }),
    denySids: tokenSidSet(user.sid, [...groupSids, BUILTIN_USERS_SID]),
    shares: [share],
    servers: new Map([[share, env.smb.host]]),
  };
}

/**
 * The body the service sends Elasticsearch for the caller's search `query` on `share`. Seen byte for byte through a
 * recording forwarder between the service and Elasticsearch (2026-11-25); the search bench also checks that both
 * answer alike.
 */
export function callerSearchBody(env: TestbedEnv, query: { q: string }, share: string): string {
  return searchBodyJson(parseSearchRequest(query), callerViewer(env, share))!;
}
