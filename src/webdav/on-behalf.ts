// WebDAV on behalf of a user: a trusted caller (an account
// of wiki.trusted_callers, with Basic credentials of its own) names the user in
// X-Service-User, and the request reaches SMB as that user by constrained
// delegation (kerberos.delegation). Who may name whom is decided exactly as for
// the wiki: the ldap-resolver's viewer answer (src/viewer/service-user.ts, the
// caller's bind, the named user's account and its state; refusals counted there), which
// this thread reuses from its ViewerAnswerCache. Only then does the KDC decide
// (src/kerberos/s4u.ts); its refusals, and no KDC answering, are named here.
import { HttpError } from '../http/http-error.js';
import { KerberosError } from '../kerberos/errors.js';
import { DelegationRefusedError } from '../kerberos/s4u.js';
import { ruleMessage } from '../viewer/service-user.js';
import type { ViewerAnswerCache } from '../viewer/viewer-cache.js';
import { DAV_CHALLENGE_HEADER } from './errors.js';


interface OnBehalfRequest {
  /** The trusted caller's Basic credentials. */
  user: string;
  password: string;
  /** The raw X-Service-User header. */
  serviceUserHeader: string;
  clientAddress: string;
}

/**
 * The sAMAccountName of the user a trusted caller names, once the wiki's rules allow it; else the HttpError the wiki
 * would answer (400 malformed header, 401 wrong caller password, 403 untrusted caller or `service_user_<rule>`, an
 * account that cannot log on among them, 429, 503), 403 `service_user_unknown` for a name the directory does not
 * know (the wiki answers it with no hits), or 403 `delegation_not_configured`.
 */
export async function namedUser(viewers: Pick<ViewerAnswerCache, 'resolve'>, request: OnBehalfRequest, delegates: boolean): Promise<string> {
  const answer = await viewers.resolve({ ...request, groupsHeader: undefined });
  if (!answer.ok) {
    const headers = answer.status === 429 ? { 'retry-after': String(answer.retryAfterSeconds) } : answer.status === 401 ? DAV_CHALLENGE_HEADER : {};
    throw new HttpError(answer.status, answer.error, answer.message, headers);
  }
  if (answer.noAccess === 'user_unknown') {
    throw new HttpError(403, 'service_user_unknown', 'X-Service-User: the directory has no such user, so the file server would not let the user log on');
  }
  // No directory (ldap.base_dn, the indexer account): the rules cannot be checked, so no one is named.
  if (answer.account === null || !delegates) {
    throw new HttpError(403, 'delegation_not_configured',
      'X-Service-User on /dav/ needs constrained delegation (kerberos.delegation with its keytab) and the directory (ldap.base_dn) to check whom a trusted caller may name; this service lacks one of them, and never serves such a request as the caller');
  }
  return answer.account;
}

/**
 * The sAMAccountName of a Kerberos ticket the front accepted (HTTP Negotiate, flow 4): the directory's account of
 * the SID its PAC names (`holder.sid`; `holder.user`, the ticket's client name, is only for messages), once the
 * directory would let the service reach SMB as it by delegation; else the HttpError: the ticket holder's 401
 * (unknown, or an account that cannot log on now), 503, or 403 `delegation_user_not_delegable` for an account
 * marked sensitive or in Protected Users, which the service refuses itself because not every KDC does
 * (service-user.ts, delegationBarrier).
 */
export async function delegableTicketHolder(viewers: Pick<ViewerAnswerCache, 'resolve'>, holder: { user: string; sid: string }, clientAddress: string): Promise<string> {
  const query = { user: holder.user, password: '', negotiated: { sid: holder.sid }, groupsHeader: undefined, serviceUserHeader: undefined, clientAddress };
  const answer = await viewers.resolve(query);
  if (!answer.ok) throw new HttpError(answer.status, answer.error, answer.message, answer.status === 401 ? DAV_CHALLENGE_HEADER : {});
  // No directory (ldap.base_dn, the indexer account): the rules cannot be checked, so no ticket is asked for.
  if (answer.account === null) {
    throw new HttpError(403, 'delegation_not_configured',
      'Negotiate on /dav/ needs the directory (ldap.base_dn) to check whom the service may delegate for; this service has none, so send Basic credentials');
  }
  if (answer.notDelegable !== undefined) {
    throw new HttpError(403, 'delegation_user_not_delegable',
      `Negotiate: ${ruleMessage(answer.account, answer.notDelegable)}, so no service may obtain a ticket in this name; log on with Basic credentials instead`);
  }
  return answer.account;
}

/**
 * The answer to a delegated logon the KDC refused (403 naming why) or could not be asked for (503); else undefined.
 * `via`: how the user was named (X-Service-User, or the Negotiate ticket).
 */
export function delegationHttpError(err: unknown, via = 'X-Service-User'): HttpError | undefined {
  const cause = err instanceof KerberosError ? err : err instanceof Error && err.cause instanceof KerberosError ? err.cause : undefined;
  if (cause === undefined) return undefined;
  if (cause instanceof DelegationRefusedError) return new HttpError(403, `delegation_${cause.reason}`, `${via}: ${cause.message}`);
  if (cause.code === 'KDC_UNREACHABLE') {
    return new HttpError(503, 'kdc_unavailable', `no KDC (kerberos.kdcs) answered, so the user's ticket cannot be had by delegation: ${cause.message}`, { 'retry-after': '5' });
  }
  return new HttpError(502, 'delegation_failed', `the user's ticket could not be had by delegation: ${cause.message}`);
}
