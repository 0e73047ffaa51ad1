// What the JSON API routes (webhook intake, user events, the admin APIs and
// page, the wiki) put around their own work: a login's outcome as an answer
// (401 with the realm's challenge, 400, 403, 429, 503) and an actor that is
// down or restarting as 503 (retry), never a 500 (src/runtime/unavailable-as-503.ts). The HTTP pieces they use
// (JSON bodies, challenges) are src/http's.
import type { AdminAuthResult, AuthorizedUser } from '../../../src/auth/admin.js';
import type { HttpExchange } from '../../../src/http/exchange.js';
import { ADMIN_CHALLENGE, challengeHeader } from '../../../src/http/challenges.js';
import { HttpError } from '../../../src/http/http-error.js';
import type { RouteHandler, RouteParams } from '../../../src/http/router.js';
import type { WebhookStoreProtocol } from '../../webhook-store/protocol.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { unavailableAs503 } from '../../../src/runtime/unavailable-as-503.js';

/** A route whose work asks other actors: one that is down makes it a 503. */
export function apiCall(work: RouteHandler): RouteHandler {
  return async (ex, params) => {
    try {
      await work(ex, params);
    } catch (err) {
      throw unavailableAs503(err);
    }
  };
}

/** The authorized user, or the HttpError to answer with (401 with `challenge`, 400, 403, 429, 503). */
export function authorizedOrThrow(result: AdminAuthResult, challenge: string): AuthorizedUser {
  if (result.ok) return result.admin;
  const headers: Record<string, string> = result.status === 401 ? challengeHeader(challenge) : {};
  if (result.status === 503) headers['retry-after'] = '5';
  if (result.status === 429) headers['retry-after'] = String(result.retryAfterSeconds);
  throw new HttpError(result.status, result.error, result.message, headers);
}

/** Who authenticates global admins: the webhook-store actor, whose admin sessions every thread shares. */
export type AdminLogins = Pick<Remote<WebhookStoreProtocol>, 'authenticateAdmin'>;

/** A global admin's call: 401 (admin realm), 400, 403, 429 or 503 before the work runs; an actor down is a 503. */
export function adminCall(logins: AdminLogins, work: (ex: HttpExchange, admin: AuthorizedUser, params: RouteParams) => Promise<void>): RouteHandler {
  return apiCall(async (ex, params) => {
    const admin = authorizedOrThrow(await logins.authenticateAdmin(ex.headers['authorization'], ex.clientAddress), ADMIN_CHALLENGE);
    await work(ex, admin, params);
  });
}
