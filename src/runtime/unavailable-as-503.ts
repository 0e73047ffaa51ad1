// What an actor that is down or restarting means to an HTTP caller: 503 (retry), never a 200 or a 500. Every
// feature whose requests ask another actor (WebDAV's dav-state, the wiki's ldap-resolver, webhook intake's dedupe)
// answers it the same way.
import { HttpError } from '../http/http-error.js';
import { ActorUnavailableError } from './rpc.js';

/**
 * A call to another actor failed because that actor is down or restarting:
 * the request gets 503 (retry later), never a 200 or a 500. Other errors pass through.
 */
export function unavailableAs503(err: unknown): unknown {
  if (!(err instanceof ActorUnavailableError)) return err;
  return new HttpError(503, 'service_unavailable', `${err.actor} is temporarily unavailable; try again shortly`, { 'retry-after': '1' });
}
