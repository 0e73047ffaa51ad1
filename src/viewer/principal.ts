/**
 * Who is asking, as the search index sees it: the `X-Service-Groups` header and the SID set a search filters with.
 *
 * `X-Service-Groups` format (sent by the browser-facing API with every call):
 *   - a comma-separated list of directory group names, e.g. `Lehrer, Fachschaft%20Deutsch, Sch%C3%BCler`;
 *   - each entry is trimmed of spaces and tabs, then percent-decoded as UTF-8 (`%20` space, `%C3%BC` ü,
 *     `%2C` a comma inside a name); `+` is a literal plus;
 *   - the raw header is ASCII: characters outside printable ASCII must be percent-encoded;
 *   - empty entries (`a,,b`, a trailing comma) are skipped and repeated names count once;
 *   - at most `maxGroups` names (default 100), each at most `maxNameLength` characters (default 256) after decoding;
 *   - a decoded name must not contain control characters.
 * A header that breaks a rule is rejected as a whole with a GroupsHeaderError (the caller answers 400).
 */
import { characterCount } from '../ldap/login-name.js';
import { AUTHENTICATED_USERS_SID, EVERYONE_SID } from '../wiki/acl.js';

export const SERVICE_GROUPS_HEADER = 'x-service-groups';

interface GroupsHeaderLimits {
  maxGroups: number;
  maxNameLength: number;
}

const DEFAULT_GROUPS_HEADER_LIMITS: GroupsHeaderLimits = { maxGroups: 100, maxNameLength: 256 };

export type GroupsHeaderProblem =
  | 'non_ascii'
  | 'bad_percent_escape'
  | 'invalid_utf8'
  | 'control_character'
  | 'too_many_groups'
  | 'name_too_long';

export class GroupsHeaderError extends Error {
  override readonly name = 'GroupsHeaderError';
  constructor(
    readonly problem: GroupsHeaderProblem,
    message: string,
  ) {
    super(`X-Service-Groups: ${message}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why `percentDecode` refused its input; the message names the offending part. */
export class PercentDecodeError extends Error {
  override readonly name = 'PercentDecodeError';
  constructor(
    readonly problem: 'bad_percent_escape' | 'invalid_utf8',
    message: string,
  ) {
    super(message);
  }
}

/** Strict percent-decoding: every `%` is followed by two hex digits, and the bytes are valid UTF-8. */
export function percentDecode(entry: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < entry.length; i++) {
    const code = entry.charCodeAt(i);
    if (code !== 0x25 /* % */) {
      bytes.push(code);
      continue;
    }
    const hex = entry.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
      throw new PercentDecodeError('bad_percent_escape', `'%${hex}' is not a percent escape (expected % and two hex digits)`);
    }
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    throw new PercentDecodeError('invalid_utf8', `the percent-decoded bytes of '${entry}' are not UTF-8`);
  }
}

/** Parses the header value; an absent header means no groups. */
export function parseServiceGroupsHeader(
  value: string | undefined,
  limits: GroupsHeaderLimits = DEFAULT_GROUPS_HEADER_LIMITS,
): string[] {
  if (value === undefined) return [];
  if (/[^\x20-\x7e\t]/.test(value)) {
    throw new GroupsHeaderError('non_ascii', 'contains characters outside printable ASCII; percent-encode them as UTF-8');
  }
  const names = new Set<string>();
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  entries.forEach((entry, index) => {
    let name: string;
    try {
      name = percentDecode(entry);
    } catch (error) {
      if (error instanceof PercentDecodeError) throw new GroupsHeaderError(error.problem, `group ${index + 1}: ${error.message}`);
      throw error;
    }
    if (/\p{Cc}/u.test(name)) {
      throw new GroupsHeaderError('control_character', `group ${index + 1} contains a control character`);
    }
    if (characterCount(name) > limits.maxNameLength) {
      throw new GroupsHeaderError('name_too_long', `group ${index + 1} is longer than ${limits.maxNameLength} characters`);
    }
    names.add(name);
    if (names.size > limits.maxGroups) {
      throw new GroupsHeaderError('too_many_groups', `more than ${limits.maxGroups} groups`);
    }
  });
  return [...names];
}

interface ResolvedPrincipal {
  /** The user's own SID, when known. */
  userSid?: string | undefined;
  /** SIDs of the groups from X-Service-Groups that the directory resolved (unresolved names are left out). */
  groupSids: readonly string[];
}

/**
 * The SIDs a page's allow entries are matched with: the user, the resolved groups, Everyone and Authenticated Users.
 * Fail-closed: when no group from the header resolved (no base_dn, directory down, unknown names) the set is empty
 * and every search and list view returns nothing.
 */
export function userSidSet(principal: ResolvedPrincipal): string[] {
  if (principal.groupSids.length === 0) return [];
  const sids = [...principal.groupSids, EVERYONE_SID, AUTHENTICATED_USERS_SID];
  if (principal.userSid) sids.unshift(principal.userSid);
  return [...new Set(sids)];
}

/**
 * The SIDs a page's deny entries are matched with: the user's whole token as the file server builds it — the user,
 * every group of `tokenGroups` (nested membership and the primary group included), Everyone and Authenticated
 * Users. Windows applies a deny entry to every SID of the token, so a header that leaves a group out must not
 * lift that group's deny.
 */
export function tokenSidSet(userSid: string, tokenGroupSids: Iterable<string>): string[] {
  return [...new Set([userSid, ...tokenGroupSids, EVERYONE_SID, AUTHENTICATED_USERS_SID])];
}

/** Relative id of `Domain Users`, the primary group of every domain account. */
const DOMAIN_USERS_RID = 513;

/**
 * `Domain Users` of the user's own domain (`S-1-5-21-a-b-c-1105` → `S-1-5-21-a-b-c-513`); null for a SID that is
 * not a domain account's.
 */
export function domainUsersSid(userSid: string): string | null {
  const account = domainAccountSid(userSid);
  return account ? `${account.domain}-${DOMAIN_USERS_RID}` : null;
}

/** A domain account's SID split into its domain's SID and its relative id; null for any other SID. */
export function domainAccountSid(sid: string): { domain: string; rid: number } | null {
  const match = /^(S-1-5-21(?:-\d+){3})-(\d+)$/.exec(sid);
  return match ? { domain: match[1]!, rid: Number(match[2]) } : null;
}
