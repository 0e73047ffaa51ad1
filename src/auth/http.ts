// What an authentication result means for an HTTP answer.
import { HttpError } from '../http/http-error.js';
import type { AdminAuthResult, AuthorizedUser } from './admin.js';

/** Sent with every 401 of the user-facing APIs, so that clients know to answer with basic credentials. */
export const BASIC_CHALLENGE = 'Basic realm="edu-fileproxy"';

/**
 * The 401 challenge of the global-admin APIs (/edu-api/admin/*): a realm of its own, so that a browser never
 * sends credentials it keeps for /dav/ or the wiki there, nor an admin's there.
 */
export const ADMIN_CHALLENGE = 'Basic realm="edu-fileproxy admin"';

/** The authorized user, or the HttpError to answer with (401 with `challenge`, 400, 403, 429, 503). */
export function authorizedOrThrow(result: AdminAuthResult, challenge: string): AuthorizedUser {
  if (result.ok) return result.admin;
  const headers: Record<string, string> = result.status === 401 ? { 'www-authenticate': challenge } : {};
  if (result.status === 503) headers['retry-after'] = '5';
  if (result.status === 429) headers['retry-after'] = String(result.retryAfterSeconds);
  throw new HttpError(result.status, result.error, result.message, headers);
}
