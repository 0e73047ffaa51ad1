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
 * (`serviceUserRefusal`): an enabled user account that is not a computer, not `krbtgt`, not the indexer account
 * (whose SID is on every indexed page), not an account of `wiki.trusted_callers`, not marked "sensitive and cannot
 * be delegated" (`userAccountControl` NOT_DELEGATED), not in Protected Users, and not in an admin group (the
 * domain's privileged groups or `admin.groups`) unless `wiki.trusted_callers_may_name_admins` allows it. Each
 * refusal is a 403 naming the rule. (A disabled, locked or expired account is not refused but sees nothing, with
 * `no_access` saying why, as before.)
 *
 * Technical accounts never read the wiki as themselves: a call from one without `X-Service-User` is refused
 * with 400 `service_user_required` instead of answering with what the account itself may see (usually nothing,
 * which a portal developer cannot tell from "no matching page"). They are the accounts of
 * `wiki.trusted_callers` and the indexer account `smb.indexer_service_account.user` — unless the indexer
 * account is the global-admin account `admin.user` (the default), which administrators also log in with.
 */
import { DirectoryError } from '../ldap/connection.js';
import type { LookedUpUser } from '../ldap/directory.js';
import { type LoginDomain, loginBudget, namesAccount } from '../ldap/login-name.js';
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

interface CallerRolesOptions {
  /** `wiki.trusted_callers`. */
  trustedCallers: readonly string[];
  /** `smb.indexer_service_account.user`. */
  indexerAccount: string;
  /** `admin.user`. */
  adminAccount: string;
  /** `admin.groups`: the service's own admin groups, refused in X-Service-User like the domain's privileged ones. */
  adminGroups: readonly string[];
  /** The DNS and NetBIOS names of the domain, to read `DOMAIN\name` and `name@realm` in the config. */
  domain: LoginDomain;
  /** `wiki.trusted_callers_may_name_admins`: whether a member of an admin group may be named in X-Service-User. */
  mayNameAdmins: boolean;
}

type TechnicalRole = 'trusted_caller' | 'indexer';

/** Why a trusted caller may not call on behalf of an account; each is a 403 `service_user_<rule>`. */
export type ServiceUserRule = 'computer' | 'krbtgt' | 'indexer' | 'trusted_caller' | 'not_delegated' | 'protected_user' | 'admin';

export const SERVICE_USER_RULES: readonly ServiceUserRule[] = ['computer', 'krbtgt', 'indexer', 'trusted_caller', 'not_delegated', 'protected_user', 'admin'];

const RULE_MESSAGES: Record<ServiceUserRule, string> = {
  computer: 'is a computer account',
  krbtgt: 'is the Kerberos service account krbtgt',
  indexer: 'is the indexer service account, whose SID is on every indexed page',
  trusted_caller: 'is an account of wiki.trusted_callers',
  not_delegated: 'is marked "sensitive and cannot be delegated" (userAccountControl NOT_DELEGATED)',
  protected_user: 'is a member of Protected Users',
  admin: 'is a member of an admin group (the domain\'s privileged groups or admin.groups), and wiki.trusted_callers_may_name_admins is off',
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
/** Domain Admins, Schema Admins, Enterprise Admins. */
const PRIVILEGED_GROUP_RIDS = [512, 518, 519];
/** Builtin Administrators, Account, Server, Print and Backup Operators. */
const PRIVILEGED_BUILTIN_SIDS = ['S-1-5-32-544', 'S-1-5-32-548', 'S-1-5-32-549', 'S-1-5-32-550', 'S-1-5-32-551'];

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

/** Which accounts may call on behalf of a user, and which never call as themselves. */
export class CallerRoles {
  constructor(private readonly options: CallerRolesOptions) {}

  get adminGroups(): readonly string[] {
    return this.options.adminGroups;
  }

  /** Whether the authenticated account (its sAMAccountName) is one of `wiki.trusted_callers`. */
  isTrusted(account: string): boolean {
    return this.options.trustedCallers.some((name) => namesAccount(name, account, this.options.domain));
  }

  /**
   * Why a trusted caller may not call on behalf of `user` (see the module comment), or null when it may.
   * `adminGroupSids`: the SIDs of `admin.groups`.
   */
  serviceUserRefusal(user: LookedUpUser, adminGroupSids: ReadonlySet<string>): ServiceUserRule | null {
    const { indexerAccount, domain, mayNameAdmins } = this.options;
    const account = domainAccountSid(user.sid);
    const rid = account?.rid;
    const ofDomain = (r: number) => `${account?.domain}-${r}`;
    const groups = new Set(user.groupSids);
    if (user.computer) return 'computer';
    if (rid === KRBTGT_RID || /^krbtgt(_\d+)?$/i.test(user.account)) return 'krbtgt';
    if (namesAccount(indexerAccount, user.account, domain)) return 'indexer';
    if (this.isTrusted(user.account)) return 'trusted_caller';
    const barrier = delegationBarrier(user);
    if (barrier !== null) return barrier;
    const admin = rid === ADMINISTRATOR_RID
      || PRIVILEGED_BUILTIN_SIDS.some((sid) => groups.has(sid))
      || (account !== null && PRIVILEGED_GROUP_RIDS.some((r) => groups.has(ofDomain(r))))
      || [...adminGroupSids].some((sid) => groups.has(sid));
    if (admin && !mayNameAdmins) return 'admin';
    return null;
  }

  /** Why the account is a technical one (see the module comment), or null for an account people log in with. */
  technicalRole(account: string): TechnicalRole | null {
    if (this.isTrusted(account)) return 'trusted_caller';
    const { indexerAccount, adminAccount, domain } = this.options;
    if (namesAccount(indexerAccount, account, domain) && !namesAccount(adminAccount, account, domain)) return 'indexer';
    return null;
  }
}
