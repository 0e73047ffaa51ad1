// The one reading of a login name. Every place that takes one — the LDAP logon (directory.ts), the WebDAV logon
// over SMB (src/webdav/methods/service.ts), the login throttle (src/auth/login-throttle.ts), the wiki's login cache (viewer.ts),
// event ownership (namesAccount) — goes through parseLoginName, so that a name means the same account and is
// counted under the same failure budget everywhere. A name it refuses is refused with 401 before the directory,
// the DC or the file server is asked: a malformed one, and a `DOMAIN\user` whose DOMAIN is not this domain's, since
// Samba logs any NTLM domain name that is not a trusted one on to its own domain (see README, Security).
import { DirectoryError } from './connection.js';

/** The names of this domain that a login name may carry. */
export interface LoginDomain {
  /** DNS name (`edu.test`): the implicit UPN suffix; derived from `ldap.base_dn`. */
  readonly realm: string;
  /** NetBIOS name (`EDU`, `smb.domain`): what `DOMAIN\user` is written with and a bare name logs on to over SMB. */
  readonly domain: string;
}

/** How a login name is bound and how its entry is found afterwards. */
export interface LoginName {
  /** What the simple bind is sent with: `user@realm` or `DOMAIN\user`, both accepted by AD. */
  readonly bindName: string;
  /** sAMAccountName to look the entry up by; absent for a UPN with a foreign suffix. */
  readonly account?: string;
  /** The UPN to prefer when several entries match, if the login was given as one. */
  readonly userPrincipalName?: string;
  /** The `DOMAIN` of a `DOMAIN\user` login, as written: this domain's NetBIOS or DNS name (parseLoginName refuses others). */
  readonly domainPart?: string;
}

/**
 * Longest login name accepted, in characters (Unicode code points, the unit every name check of the service
 * counts in: X-Service-User, X-Service-Groups). AD's own limits are shorter (UPN 1024 bytes, sAMAccountName 20).
 */
const MAX_LOGIN_NAME_LENGTH = 256;

/** A name's length in the one unit every name check counts: characters (code points), not UTF-16 units. */
export function characterCount(name: string): number {
  let count = 0;
  for (const _ of name) count++;
  return count;
}

/** A login name as written: `user`, `DOMAIN\user` or `user@suffix`. */
interface WrittenName {
  readonly user: string;
  readonly domain?: string;
  readonly suffix?: string;
}

/** The one syntax check of login names; a name it refuses never reaches the directory, the DC or the file server. */
function readLoginName(input: string): WrittenName {
  const name = input.trim();
  const refuse = (why: string) =>
    new DirectoryError('invalid_credentials', `invalid user name: ${why}; use user, DOMAIN\\user or user@realm`);
  if (name === '') throw refuse('it is empty');
  if (characterCount(name) > MAX_LOGIN_NAME_LENGTH) throw refuse(`it is longer than ${MAX_LOGIN_NAME_LENGTH} characters`);
  if (/[\p{Cc}=,]/u.test(name)) throw refuse('it contains control characters, "=" or ","');

  const backslash = name.split('\\');
  const at = name.split('@');
  if (backslash.length > 2 || at.length > 2 || (backslash.length === 2 && at.length === 2)) {
    throw refuse('it mixes or repeats "\\" and "@"');
  }
  if (backslash.length === 2) {
    const [domain, user] = backslash as [string, string];
    if (domain === '' || user === '') throw refuse('domain or user part is empty');
    return { user, domain };
  }
  if (at.length === 2) {
    const [user, suffix] = at as [string, string];
    if (user === '' || suffix === '') throw refuse('user or realm part is empty');
    return { user, suffix };
  }
  return { user: name };
}

/**
 * Whose failure budget a login with this name spends (login-throttle.ts), as far as the name alone tells: the
 * lower-cased user part of `DOMAIN\user` and of a bare name (an account name, the same for `EDU\Anna` and `ANNA`);
 * for `user@suffix` the whole lower-cased principal name, which the ldap-resolver maps to the account holding it
 * before anything is counted (src/auth/login-accounts.ts), since an explicit UPN (`a.mueller@schule.de` of `anna`)
 * need not carry its account's name. A malformed name is a DirectoryError (`invalid_credentials`), refused before
 * anything is counted or asked.
 */
export function loginBudget(input: string): string {
  const written = readLoginName(input);
  return (written.suffix === undefined ? written.user : `${written.user}@${written.suffix}`).toLowerCase();
}

/**
 * The budget of a login bound to LDAP (wiki, admin and events APIs): that of the name as bound, for a bare name binds
 * as `user@realm`, which another account's explicit UPN can hold (over SMB it logs on as `DOMAIN\user`).
 */
export function boundLoginBudget(login: LoginName): string {
  return loginBudget(login.bindName);
}

/** The user part of a budget from loginBudget: the budget a principal name spends where no directory maps it. */
export function budgetUserPart(budget: string): string {
  return budget.split('@')[0]!;
}

/**
 * Accepts `user`, `DOMAIN\user` and `user@realm`. AD (and Samba AD) binds `DOMAIN\user` and
 * UPNs directly but not a bare account name, so a bare name is bound as `user@<realm>` (every
 * account has that implicit UPN). A DOMAIN that is neither this domain's NetBIOS name nor its DNS name is refused
 * (Samba would log `FOO\anna` on as this domain's anna, a spelling of one account that nothing here would know as
 * hers); a UPN may carry any suffix, which the directory maps to the account holding it. Anything else is refused as
 * invalid credentials.
 */
export function parseLoginName(input: string, where: LoginDomain): LoginName {
  const written = readLoginName(input);
  const name = input.trim();
  if (written.domain !== undefined) {
    if (!isThisDomain(written.domain, where)) {
      throw new DirectoryError('invalid_credentials', `invalid user name: the domain '${written.domain}' is not this service's (${where.domain}); use user, ${where.domain}\\user or user@realm`);
    }
    return { bindName: name, account: written.user, domainPart: written.domain };
  }
  if (written.suffix !== undefined) {
    const inThisDomain = written.suffix.toLowerCase() === where.realm.toLowerCase();
    return inThisDomain
      ? { bindName: name, account: written.user, userPrincipalName: name }
      : { bindName: name, userPrincipalName: name };
  }
  return { bindName: `${name}@${where.realm}`, account: name };
}

/** Whether `domain` (the DOMAIN of `DOMAIN\user`) names this domain: its NetBIOS or DNS name, case-insensitive. */
function isThisDomain(domain: string, where: LoginDomain): boolean {
  const named = domain.toLowerCase();
  return named === where.domain.toLowerCase() || (where.realm !== '' && named === where.realm.toLowerCase());
}

/**
 * The SMB (NTLM) logon of a login name: `DOMAIN\user` and a bare name as this domain's NetBIOS name (so that
 * `edu.test\anna` and `EDU\anna` share one pooled session), a UPN with an empty domain (the DC resolves it as it
 * does for the LDAP bind).
 */
export function ntlmLogon(login: LoginName, where: LoginDomain): { domain: string; user: string } {
  if (login.domainPart === undefined && login.userPrincipalName !== undefined) return { domain: '', user: login.userPrincipalName };
  return { domain: where.domain, user: login.account! };
}

/**
 * Whether `name` (user, DOMAIN\user or user@realm, as `parseLoginName` reads it) names the account
 * with sAMAccountName `account` of this domain: `domain` is its NetBIOS name (smb.domain), `realm` its
 * DNS name. Case-insensitive, as the directory is. A foreign domain (which parseLoginName refuses) or UPN suffix,
 * or a UPN whose user part is not the account name, names someone else.
 */
export function namesAccount(name: string, account: string, where: LoginDomain): boolean {
  let login: LoginName;
  try {
    login = parseLoginName(name, where);
  } catch {
    return false;
  }
  return login.account?.toLowerCase() === account.toLowerCase();
}

/** `DC=edu,DC=test` → `edu.test`: the AD DNS domain, which is also the default UPN suffix. */
export function realmFromBaseDn(baseDn: string): string | undefined {
  const labels = baseDn
    .split(',')
    .map((rdn) => /^\s*dc\s*=\s*(.+?)\s*$/i.exec(rdn)?.[1])
    .filter((label): label is string => label !== undefined);
  return labels.length > 0 ? labels.join('.') : undefined;
}
