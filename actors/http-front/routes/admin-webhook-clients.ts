// The global-admin API of the webhook clients (spec 4.4), under
// /edu-api/admin/webhook-clients. Every call first authenticates a global
// admin (LDAPS bind + admin.groups, with sessions) in the webhook-store actor.
// Keys are shown only by the reveal call, which writes an audit line (never the key).
import type { Logger } from 'pino';
import type { AuthorizedUser } from '../../../src/auth/admin.js';
import type { Config } from '../../../src/config/index.js';
import { HttpError } from '../../../src/http/http-error.js';
import { readJsonObject } from '../../../src/http/json-body.js';
import type { Router } from '../../../src/http/router.js';
import type { WebhookStoreProtocol } from '../../webhook-store/protocol.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { adminCall } from './api-calls.js';

interface AdminWebhookClientRouteDeps {
  readonly config: Pick<Config, 'http' | 'webhooks'>;
  readonly store: Remote<WebhookStoreProtocol>;
  readonly log: Logger;
}

const BASE = '/edu-api/admin/webhook-clients';
/** Fields the service sets; a request that tries to set them is refused (spec 2: keys are never chosen). */
const READ_ONLY_FIELDS = ['id', 'api_key', 'created_at'];
const MAX_IDS_PER_DELETE = 1000;
const NO_STORE = { 'cache-control': 'no-store' };

export function registerAdminWebhookClientRoutes(router: Router, deps: AdminWebhookClientRouteDeps): void {
  const { store, log } = deps;
  const supported = deps.config.webhooks.supported_user_agents;
  const withBody = { bodyLimit: deps.config.http.max_body };

  router.add('POST', BASE, adminCall(store, async (ex, admin) => {
    const userAgent = parseCreateRequest(await readJsonObject(ex), supported);
    const client = await store.createClient(userAgent);
    log.info({ audit: 'webhook_client_created', admin: admin.user, webhook_client: client.id, user_agent: userAgent }, 'webhook client created');
    ex.json(201, client, { location: `${BASE}/${client.id}`, ...NO_STORE });
  }), withBody);

  router.add('GET', BASE, adminCall(store, async (ex) => {
    const userAgent = ex.query.get('user_agent') ?? undefined;
    ex.json(200, { clients: await store.listClients(userAgent) }, NO_STORE);
  }));

  router.add('GET', `${BASE}/:id/key`, adminCall(store, async (ex, admin, { id }) => {
    const client = await store.revealClient(id);
    if (client === undefined) throw unknownClient(id);
    log.info({ audit: 'webhook_client_key_revealed', admin: admin.user, webhook_client: client.id }, 'webhook client key revealed');
    ex.json(200, { id: client.id, api_key: client.api_key }, NO_STORE);
  }));

  router.add('DELETE', BASE, adminCall(store, async (ex, admin) => {
    const ids = parseDeleteRequest(await readJsonObject(ex));
    ex.json(200, await deleteClients(ids, admin), NO_STORE);
  }), withBody);

  router.add('DELETE', `${BASE}/:id`, adminCall(store, async (ex, admin, { id }) => {
    const result = await deleteClients([id], admin);
    if (result.deleted.length === 0) throw unknownClient(id);
    ex.json(200, result, NO_STORE);
  }));

  // Clients are immutable: a key can be neither changed nor regenerated (spec 2 and 5).
  const immutable = adminCall(store, async () => {
    throw new HttpError(400, 'client_immutable',
      'webhook clients and their keys cannot be changed or regenerated; to replace a key, create a new client with the same user_agent and delete the old one');
  });
  router.add('PUT', `${BASE}/:id`, immutable, withBody);
  router.add('PATCH', `${BASE}/:id`, immutable, withBody);
  router.add('POST', `${BASE}/:id/key`, immutable, withBody);
  router.add('PUT', `${BASE}/:id/key`, immutable, withBody);

  async function deleteClients(ids: string[], admin: AuthorizedUser) {
    const { deleted, notFound } = await store.deleteClients(ids);
    if (deleted.length > 0) log.info({ audit: 'webhook_clients_deleted', admin: admin.user, webhook_clients: deleted }, 'webhook clients deleted');
    return { deleted, not_found: notFound };
  }
}

/** `{"user_agent": "<supported service>"}` and nothing else. */
function parseCreateRequest(body: Record<string, unknown>, supported: readonly string[]): string {
  for (const field of Object.keys(body)) {
    if (READ_ONLY_FIELDS.includes(field)) {
      throw invalid('read_only_field', `${field} is set by the service and cannot be chosen; send only user_agent`);
    }
    if (field !== 'user_agent') throw invalid('unknown_field', `unknown field ${field}; send only user_agent`);
  }
  const userAgent = body['user_agent'];
  if (userAgent === undefined) throw invalid('missing_field', `user_agent is required (one of: ${supported.join(', ')})`);
  if (typeof userAgent !== 'string') throw invalid('invalid_field', 'user_agent must be a string');
  if (!supported.includes(userAgent)) {
    throw invalid('unsupported_user_agent', `user_agent '${userAgent}' is not a supported service; choose one of: ${supported.join(', ')}`);
  }
  return userAgent;
}

/** `{"ids": ["<id>", ...]}`: at least one id, each a non-empty string. */
function parseDeleteRequest(body: Record<string, unknown>): string[] {
  for (const field of Object.keys(body)) {
    if (field !== 'ids') throw invalid('unknown_field', `unknown field ${field}; send only ids`);
  }
  const ids = body['ids'];
  if (ids === undefined) throw invalid('missing_field', 'ids is required: a list of client ids');
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_IDS_PER_DELETE) {
    throw invalid('invalid_field', `ids must be a list of 1 to ${MAX_IDS_PER_DELETE} client ids`);
  }
  const bad = ids.findIndex((id) => typeof id !== 'string' || id === '');
  if (bad !== -1) throw invalid('invalid_field', `ids[${bad}] must be a non-empty string`);
  return ids as string[];
}

function invalid(code: string, message: string): HttpError {
  return new HttpError(400, code, message);
}

function unknownClient(id: string): HttpError {
  return new HttpError(404, 'client_not_found', `no webhook client with id ${id}`);
}
