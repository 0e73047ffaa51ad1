/** Credentials from an `Authorization: Basic …` header. */
interface BasicCredentials {
  readonly user: string;
  readonly password: string;
}

type BasicAuthResult =
  | ({ readonly ok: true } & BasicCredentials)
  | { readonly ok: false; readonly error: 'missing' | 'not_basic' | 'malformed'; readonly message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses an Authorization header with the Basic scheme (RFC 7617): base64 of `user:password`
 * in UTF-8; the password may contain further colons. Every failure says what is wrong.
 */
export function parseBasicAuth(header: string | undefined): BasicAuthResult {
  if (header === undefined || header.trim() === '') {
    return { ok: false, error: 'missing', message: 'Authorization header is missing; basic credentials are required' };
  }
  const match = /^\s*(\S+)\s+(\S*)\s*$/.exec(header);
  if (match === null || match[1]!.toLowerCase() !== 'basic') {
    return { ok: false, error: 'not_basic', message: 'Authorization header must use the Basic scheme' };
  }
  const token = match[2]!;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) {
    return { ok: false, error: 'malformed', message: 'Basic credentials are not valid base64' };
  }
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(token, 'base64'));
  } catch {
    return { ok: false, error: 'malformed', message: 'Basic credentials are not valid UTF-8' };
  }
  const colon = decoded.indexOf(':');
  if (colon === -1) {
    return { ok: false, error: 'malformed', message: 'Basic credentials must have the form user:password' };
  }
  const user = decoded.slice(0, colon);
  if (user === '') return { ok: false, error: 'malformed', message: 'Basic credentials have an empty user name' };
  return { ok: true, user, password: decoded.slice(colon + 1) };
}
