// What an authentication result means for an HTTP answer.
import { HttpError } from '../http/http-error.js';
import type { AdminAuthResult, AuthorizedUser } from './admin.js';

/** Sent with every 401, so that clients know to answer with basic credentials. */
export const BASIC_CHALLENGE = 'Basic realm="edu-fileproxy"';

/** The authorized user, or the HttpError to answer with (401 with a challenge, 400, 403, 503). */
export function authorizedOrThrow(result: AdminAuthResult): AuthorizedUser {
  if (result.ok) return result.admin;
  const headers: Record<string, string> = result.status === 401 ? { 'www-authenticate': BASIC_CHALLENGE } : {};
  if (result.status === 503) headers['retry-after'] = '5';
  throw new HttpError(result.status, result.error, result.message, headers);
}
