// The WWW-Authenticate challenges (RFC 7617) that go with every 401 of a Basic
// login, one place for all of them. Two realms: a browser keeps the
// credentials of each apart, so that the admin's are never sent to /dav/ or
// the wiki, nor a user's to the admin APIs.

/** The users' realm: wiki and user events. */
export const BASIC_CHALLENGE = 'Basic realm="edu-fileproxy"';

/** The users' realm as WebDAV names it: with the charset of the credentials (UTF-8, RFC 7617 §2.1). */
export const DAV_CHALLENGE = 'Basic realm="edu-fileproxy", charset="UTF-8"';

/** The realm of the global-admin APIs and page (/edu-api/admin/*). */
export const ADMIN_CHALLENGE = 'Basic realm="edu-fileproxy admin"';

/**
 * A users' challenge with HTTP Negotiate offered first (kerberos.delegation.http_spn): clients holding a Kerberos
 * ticket answer it, the rest fall back to Basic. One header, two challenges (RFC 9110 11.6.1).
 */
export function negotiateChallenge(basic: string): string {
  return `Negotiate, ${basic}`;
}

/** The header of a 401 that asks for credentials with `challenge`. */
export function challengeHeader(challenge: string): Record<string, string> {
  return { 'www-authenticate': challenge };
}
