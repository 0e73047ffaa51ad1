/**
 * Wiki calls on behalf of a user. A portal that signs users in with SAML or OpenID Connect never sees their
 * password, so it calls with its own directory account (listed in `wiki.trusted_callers`) and names the user in
 * `X-Service-User`; the ldap-resolver then reads that user's token from the directory (viewer.ts).
 *
 * `X-Service-User` format: one account name, the sAMAccountName (`anna`) or the userPrincipalName
 * (`anna@schule.local`); trimmed; percent-encoded as UTF-8 like the entries of X-Service-Groups (`j%C3%BCrgen`),
 * so the raw header is printable ASCII; at most 256 characters (code points, as every name check counts, see
 * MAX_LOGIN_NAME_LENGTH) after decoding; no control characters, `,`, `=` or `\` (one user per call, and no
 * `DOMAIN\user`: the directory searched is `ldap.base_dn`); otherwise what a login name may be (login-name.ts).
 * A header that breaks a rule is rejected with a ServiceUserHeaderError (the caller answers 400).
 *
 * Whom a trusted caller may name is bounded the way Kerberos constrained delegation bounds a service
 * (`CallerRoles.serviceUserRefusal`): an enabled user account that is not a computer, not `krbtgt`, not the indexer
 * account (whose SID is on every indexed page), not an account of `wiki.trusted_callers`, not marked "sensitive and
 * cannot be delegated" (`userAccountControl` NOT_DELEGATED), not in Protected Users, not in an admin group (the
 * domain's privileged groups or `admin.groups`) nor marked by the directory as one that is or was (`adminCount`)
 * unless `wiki.trusted_callers_may_name_admins` allows it, and one the directory would let log on now: not disabled,
 * locked out, expired, nor with an expired password. Each is a rule of its own, because each has its own remedy
 * (enable the account; wait for the lockout to pass or unlock it; extend `accountExpires`; the user sets a new
 * password) and /dav/ has always answered them so; `adminCount` without an admin group is one too (clear it once the
 * account is in none). Each refusal is a 403 naming the rule. A name the directory does not know is no account, so
 * no rule: the user sees nothing (`no_access: user_unknown`, viewer.ts).
 *
 * The rules compare accounts, not names: the accounts of the config are resolved to their SIDs (caller-accounts.ts),
 * so that no spelling of an account (`DOMAIN\name`, `name@realm`, an explicit UPN with another suffix or user part)
 * escapes them.
 *
 * Technical accounts never read the wiki as themselves: a call from one without `X-Service-User` is refused
 * with 400 `service_user_required` instead of answering with what the account itself may see (usually nothing,
 * which a portal developer cannot tell from "no matching page"). They are the accounts of
 * `wiki.trusted_callers` and the indexer account `smb.indexer_service_account.user` — unless the indexer
 * account is the global-admin account `admin.user` (the default), which administrators also log in with.
 */
import { DirectoryError } from '../ldap/connection.js';
import type { AccountState, LookedUpUser } from '../ldap/directory.js';
import { loginBudget } from '../ldap/login-name.js';
import { domainAccountSid, PercentDecodeError, percentDecode } from './principal.js';

export const SERVICE_USER_HEADER = 'x-service-user';

export class ServiceUserHeaderError extends Error {
  override readonly name = 'ServiceUserHeaderError';
  constructor(message: string) {
    super(`X-Service-User: ${message}`);
  }
}

/** The user named by the header, decoded; undefined when the request had no such header. */
export function parseServiceUserHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/[^\x20-\x7e\t]/.test(value)) {
    throw new ServiceUserHeaderError('contains characters outside printable ASCII; percent-encode them as UTF-8');
  }
  if (value.includes(',')) throw new ServiceUserHeaderError('names more than one user (a comma); send exactly one account name');
  let name: string;
  try {
    name = percentDecode(value.trim()).trim();
  } catch (error) {
    if (error instanceof PercentDecodeError) throw new ServiceUserHeaderError(error.message);
    throw error;
  }
  if (name === '') throw new ServiceUserHeaderError('is empty; name the user (sAMAccountName or userPrincipalName) or leave the header out');
  if (/[\p{Cc},=\\]/u.test(name)) {
    throw new ServiceUserHeaderError('contains a control character, ",", "=" or "\\"; send the sAMAccountName or the userPrincipalName');
  }
  try {
    loginBudget(name); // the login-name rules (length, "@"), so the lookup cannot refuse what this accepted
  } catch (error) {
    if (error instanceof DirectoryError) throw new ServiceUserHeaderError(error.message);
    throw error;
  }
  return name;
}

/** The accounts the config gives a role, as SIDs (resolved by caller-accounts.ts), and what the config allows. */
interface CallerRolesOptions {
  /** The SIDs of the accounts of `wiki.trusted_callers` the directory knows. */
  trustedCallers: ReadonlySet<string>;
  /** The SID of `smb.indexer_service_account.user`; undefined when the directory does not know it. */
  indexer: string | undefined;
  /** The SID of `admin.user`; undefined when the directory does not know it. */
  admin: string | undefined;
  /** `wiki.trusted_callers_may_name_admins`: whether a member of an admin group may be named in X-Service-User. */
  mayNameAdmins: boolean;
}

type TechnicalRole = 'trusted_caller' | 'indexer';

/** Why a trusted caller may not call on behalf of an account; each is a 403 `service_user_<rule>`. */
export type ServiceUserRule =
  | 'computer' | 'krbtgt' | 'indexer' | 'trusted_caller' | 'not_delegated' | 'protected_user' | 'admin' | 'admin_count'
  | Exclude<AccountState, 'active'>;

export const SERVICE_USER_RULES: readonly ServiceUserRule[] = [
  'computer', 'krbtgt', 'indexer', 'trusted_caller', 'not_delegated', 'protected_user', 'admin', 'admin_count',
  'disabled', 'locked', 'expired', 'password_expired',
];

const RULE_MESSAGES: Record<ServiceUserRule, string> = {
  computer: 'is a computer account',
  krbtgt: 'is the Kerberos service account krbtgt',
  indexer: 'is the indexer service account, whose SID is on every indexed page',
  trusted_caller: 'is an account of wiki.trusted_callers',
  not_delegated: 'is marked "sensitive and cannot be delegated" (userAccountControl NOT_DELEGATED)',
  protected_user: 'is a member of Protected Users',
  admin: 'is a member of an admin group (the domain\'s privileged groups or admin.groups), and wiki.trusted_callers_may_name_admins is off',
  admin_count: 'has adminCount set, which the directory gives every member of a protected group (AdminSDHolder) and '
    + 'keeps after it leaves the group, and wiki.trusted_callers_may_name_admins is off; clear adminCount once the account is in none',
  disabled: 'is disabled, so the file server would not let it log on',
  locked: 'is locked out after too many wrong passwords, so the file server would not let it log on until the lockout ends',
  expired: 'has expired (accountExpires has passed), so the file server would not let it log on',
  password_expired: 'has an expired password, so the file server would not let it log on before the user sets a new one',
};

/** `account` and what the rule says of it ("anna is a member of Protected Users"). */
export function ruleMessage(account: string, rule: ServiceUserRule): string {
  return `${account} ${RULE_MESSAGES[rule]}`;
}

/** The 403 message of a refused X-Service-User. */
export function serviceUserRefusalMessage(account: string, rule: ServiceUserRule): string {
  return `X-Service-User: ${ruleMessage(account, rule)}; a trusted caller may not call on behalf of it`;
}

/** Relative ids of the domain's own accounts and groups that no trusted caller may act as or through. */
const ADMINISTRATOR_RID = 500;
const KRBTGT_RID = 502;
const PROTECTED_USERS_RID = 525;
/**
 * Domain Admins, Schema Admins, Enterprise Admins; Group Policy Creator Owners (520), who write the policies every
 * computer of the domain runs; Key Admins and Enterprise Key Admins (526, 527), who may give any account a key to
 * log on with (`msDS-KeyCredentialLink`).
 */
const PRIVILEGED_GROUP_RIDS = [512, 518, 519, 520, 526, 527];
/** Builtin Administrators, Account, Server, Print and Backup Operators, Replicator. */
const PRIVILEGED_BUILTIN_SIDS = ['S-1-5-32-544', 'S-1-5-32-548', 'S-1-5-32-549', 'S-1-5-32-550', 'S-1-5-32-551', 'S-1-5-32-552'];
/**
 * DnsAdmins, whose members change the domain's DNS records (and make a Windows DC's DNS service load a DLL of
 * theirs). It has no well-known RID: the DC creates it with the DNS role, under a RID of its own. So it is known by
 * the name the directory gives it, its sAMAccountName, and resolved to its SID together with `admin.groups` (below
 * `ldap.base_dn`, case-insensitively as the directory matches names; CallerAccounts.namedAdminGroups). A domain
 * without it has no member of it to refuse.
 */
export const DNS_ADMINS_GROUP = 'DnsAdmins';

/** The directory's two reasons why no service may obtain a ticket in this user's name. */
export type DelegationBarrier = Extract<ServiceUserRule, 'not_delegated' | 'protected_user'>;

/**
 * Why the directory forbids delegating for `user` (marked sensitive, or a member of Protected Users), or null. A
 * Windows KDC enforces both itself; Samba 4.17 issues S4U2Proxy tickets for Protected Users members all the same
 * (test/integration/kerberos/protected-users.test.ts), so the service checks before it asks.
 */
export function delegationBarrier(user: LookedUpUser): DelegationBarrier | null {
  if (user.notDelegated) return 'not_delegated';
  const account = domainAccountSid(user.sid);
  if (account !== null && user.groupSids.includes(`${account.domain}-${PROTECTED_USERS_RID}`)) return 'protected_user';
  return null;
}

/** Which accounts may call on behalf of a user, and which never call as themselves; accounts are told by their SIDs. */
export class CallerRoles {
  constructor(private readonly options: CallerRolesOptions) {}

  /** Whether the authenticated account (its SID) is one of `wiki.trusted_callers`. */
  isTrusted(sid: string): boolean {
    return this.options.trustedCallers.has(sid);
  }

  /**
   * Why a trusted caller may not call on behalf of `user` (see the module comment), or null when it may.
   * `adminGroupSids`: the SIDs of the admin groups known by name, `admin.groups` and DnsAdmins. A member of an admin
   * group is `admin`; `admin_count` is for an account the directory marks as a protected group's member that is in
   * none this knows (a former member, or a member of a protected group not listed here). Both give way to
   * `wiki.trusted_callers_may_name_admins` alike: where admins may be named, an account that was one may be too. The
   * rules of what the account is come before its state: enabling an account must not make one that no trusted caller
   * may ever name appear nameable.
   */
  serviceUserRefusal(user: LookedUpUser, adminGroupSids: ReadonlySet<string>): ServiceUserRule | null {
    const { indexer, mayNameAdmins } = this.options;
    const account = domainAccountSid(user.sid);
    const rid = account?.rid;
    const ofDomain = (r: number) => `${account?.domain}-${r}`;
    const groups = new Set(user.groupSids);
    if (user.computer) return 'computer';
    if (rid === KRBTGT_RID || /^krbtgt(_\d+)?$/i.test(user.account)) return 'krbtgt';
    if (user.sid === indexer) return 'indexer';
    if (this.isTrusted(user.sid)) return 'trusted_caller';
    const barrier = delegationBarrier(user);
    if (barrier !== null) return barrier;
    const admin = rid === ADMINISTRATOR_RID
      || PRIVILEGED_BUILTIN_SIDS.some((sid) => groups.has(sid))
      || (account !== null && PRIVILEGED_GROUP_RIDS.some((r) => groups.has(ofDomain(r))))
      || [...adminGroupSids].some((sid) => groups.has(sid));
    if (!mayNameAdmins) {
      if (admin) return 'admin';
      if (user.adminCount) return 'admin_count';
    }
    if (user.state !== 'active') return user.state;
    return null;
  }

  /** Why the account (its SID) is a technical one (see the module comment), or null for an account people log in with. */
  technicalRole(sid: string): TechnicalRole | null {
    if (this.isTrusted(sid)) return 'trusted_caller';
    const { indexer, admin } = this.options;
    if (sid === indexer && sid !== admin) return 'indexer';
    return null;
  }
}
