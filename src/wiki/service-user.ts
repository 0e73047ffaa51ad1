/**
 * Wiki calls on behalf of a user. A portal that signs users in with SAML or OpenID Connect never sees their
 * password, so it calls with its own directory account (listed in `wiki.trusted_callers`) and names the user in
 * `X-Service-User`; the ldap-resolver then reads that user's token from the directory (viewer.ts).
 *
 * `X-Service-User` format: one account name, the sAMAccountName (`anna`) or the userPrincipalName
 * (`anna@schule.local`); trimmed; percent-encoded as UTF-8 like the entries of X-Service-Groups (`j%C3%BCrgen`),
 * so the raw header is printable ASCII; at most 256 characters after decoding; no control characters, `,`, `=`
 * or `\` (one user per call, and no `DOMAIN\user`: the directory searched is `ldap.base_dn`).
 * A header that breaks a rule is rejected with a ServiceUserHeaderError (the caller answers 400).
 *
 * Technical accounts never read the wiki as themselves: a call from one without `X-Service-User` is refused
 * with 400 `service_user_required` instead of answering with what the account itself may see (usually nothing,
 * which a portal developer cannot tell from "no matching page"). They are the accounts of
 * `wiki.trusted_callers` and the indexer account `smb.indexer_service_account.user` — unless the indexer
 * account is the global-admin account `admin.user` (the default), which administrators also log in with.
 */
import { namesAccount } from '../ldap/login-name.js';
import { PercentDecodeError, percentDecode } from './principal.js';

export const SERVICE_USER_HEADER = 'x-service-user';
const MAX_NAME_LENGTH = 256;

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
  if ([...name].length > MAX_NAME_LENGTH) throw new ServiceUserHeaderError(`is longer than ${MAX_NAME_LENGTH} characters`);
  if (/[\p{Cc},=\\]/u.test(name)) {
    throw new ServiceUserHeaderError('contains a control character, ",", "=" or "\\"; send the sAMAccountName or the userPrincipalName');
  }
  const at = name.split('@');
  if (at.length > 2 || at.some((part) => part === '')) throw new ServiceUserHeaderError('is neither an account name nor a user@domain principal name');
  return name;
}

export interface CallerRolesOptions {
  /** `wiki.trusted_callers`. */
  trustedCallers: readonly string[];
  /** `smb.indexer_service_account.user`. */
  indexerAccount: string;
  /** `admin.user`. */
  adminAccount: string;
  /** The DNS and NetBIOS names of the domain, to read `DOMAIN\name` and `name@realm` in the config. */
  domain: { readonly realm: string; readonly domain: string };
}

export type TechnicalRole = 'trusted_caller' | 'indexer';

/** Which accounts may call on behalf of a user, and which never call as themselves. */
export class CallerRoles {
  constructor(private readonly options: CallerRolesOptions) {}

  /** Whether the authenticated account (its sAMAccountName) is one of `wiki.trusted_callers`. */
  isTrusted(account: string): boolean {
    return this.options.trustedCallers.some((name) => namesAccount(name, account, this.options.domain));
  }

  /** Why the account is a technical one (see the module comment), or null for an account people log in with. */
  technicalRole(account: string): TechnicalRole | null {
    if (this.isTrusted(account)) return 'trusted_caller';
    const { indexerAccount, adminAccount, domain } = this.options;
    if (namesAccount(indexerAccount, account, domain) && !namesAccount(adminAccount, account, domain)) return 'indexer';
    return null;
  }
}
