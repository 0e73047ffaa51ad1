import { DirectoryError } from './connection.js';

/** How a login name is bound and how its entry is found afterwards. */
export interface LoginName {
  /** What the simple bind is sent with: `user@realm` or `DOMAIN\user`, both accepted by AD. */
  readonly bindName: string;
  /** sAMAccountName to look the entry up by; absent for a UPN with a foreign suffix. */
  readonly account?: string;
  /** The UPN to prefer when several entries match, if the login was given as one. */
  readonly userPrincipalName?: string;
}

const MAX_LENGTH = 256;

/**
 * Accepts `user`, `DOMAIN\user` and `user@realm`. AD (and Samba AD) binds `DOMAIN\user` and
 * UPNs directly but not a bare account name, so a bare name is bound as `user@<realm>` (every
 * account has that implicit UPN). Anything else is refused as invalid credentials.
 */
export function parseLoginName(input: string, realm: string): LoginName {
  const name = input.trim();
  const refuse = (why: string) =>
    new DirectoryError('invalid_credentials', `invalid user name: ${why}; use user, DOMAIN\\user or user@realm`);
  if (name === '') throw refuse('it is empty');
  if (name.length > MAX_LENGTH) throw refuse(`it is longer than ${MAX_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f=,]/.test(name)) throw refuse('it contains control characters, "=" or ","');

  const backslash = name.split('\\');
  const at = name.split('@');
  if (backslash.length > 2 || at.length > 2 || (backslash.length === 2 && at.length === 2)) {
    throw refuse('it mixes or repeats "\\" and "@"');
  }
  if (backslash.length === 2) {
    const [domain, account] = backslash as [string, string];
    if (domain === '' || account === '') throw refuse('domain or user part is empty');
    return { bindName: name, account };
  }
  if (at.length === 2) {
    const [account, suffix] = at as [string, string];
    if (account === '' || suffix === '') throw refuse('user or realm part is empty');
    const inThisDomain = suffix.toLowerCase() === realm.toLowerCase();
    return inThisDomain ? { bindName: name, account, userPrincipalName: name } : { bindName: name, userPrincipalName: name };
  }
  return { bindName: `${name}@${realm}`, account: name };
}

/**
 * Whether `name` (user, DOMAIN\user or user@realm, as `parseLoginName` reads it) names the account
 * with sAMAccountName `account` of this domain: `domain` is its NetBIOS name (smb.domain), `realm` its
 * DNS name. Case-insensitive, as the directory is. A foreign domain or UPN suffix, or a UPN whose user
 * part is not the account name, names someone else.
 */
export function namesAccount(name: string, account: string, where: { readonly realm: string; readonly domain: string }): boolean {
  let login: LoginName;
  try {
    login = parseLoginName(name, where.realm);
  } catch {
    return false;
  }
  const backslash = login.bindName.indexOf('\\');
  if (backslash !== -1) {
    const domain = login.bindName.slice(0, backslash).toLowerCase();
    if (domain !== where.domain.toLowerCase() && domain !== where.realm.toLowerCase()) return false;
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
