// GET /edu-api/users/{username}/events: a user's cached service-eventhandler
// events (unexpired, newest first), for the calling service or the user. Basic
// credentials, checked by the webhook-store (see actors/webhook-store/logins.ts
// for who may read whose events).
import { BASIC_CHALLENGE } from '../../../src/http/challenges.js';
import { HttpError } from '../../../src/http/http-error.js';
import type { Router } from '../../../src/http/router.js';
import type { WebhookStoreProtocol } from '../../webhook-store/protocol.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { userEventsJson } from '../../../src/webhooks/user-events.js';
import { apiCall, authorizedOrThrow } from './api-calls.js';

export function registerUserEventRoutes(router: Router, store: Remote<WebhookStoreProtocol>): void {
  router.add('GET', '/edu-api/users/:username/events', apiCall(async (ex, params) => {
    const username = decodeUsername(params['username'] ?? '');
    authorizedOrThrow(await store.authenticateEventReader(ex.headers['authorization'], username, ex.clientAddress), BASIC_CHALLENGE);
    const events = await store.userEvents(username);
    ex.send(200, userEventsJson(username, events), { 'content-type': 'application/json', 'cache-control': 'no-store' });
  }));
}

function decodeUsername(raw: string): string {
  let username: string;
  try {
    username = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'invalid_username', 'the user name in the path is not valid percent-encoded UTF-8');
  }
  if (username.trim() === '') throw new HttpError(400, 'invalid_username', 'the user name in the path is empty');
  return username;
}
