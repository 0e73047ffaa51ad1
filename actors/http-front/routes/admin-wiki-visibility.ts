// Wiki visibility per share (spec 5, second stage), managed by global admins:
//   GET /edu-api/admin/wiki-visibility          → { shares: [{ share, active, access_groups }] }
//   PUT /edu-api/admin/wiki-visibility/{share}  ← { active, access_groups? } → the stored entry
// The admin login is the one the webhook admin API uses (webhook-store actor,
// sessions shared by every thread); the settings live in the ldap-resolver,
// which applies them to every wiki call.
import type { Logger } from 'pino';
import { ADMIN_CHALLENGE, authorizedOrThrow } from '../../../src/auth/http.js';
import type { Config } from '../../../src/config/index.js';
import type { HttpExchange } from '../../../src/http/exchange.js';
import { HttpError } from '../../../src/http/http-error.js';
import type { RouteHandler, Router } from '../../../src/http/router.js';
import type { LdapResolverProtocol } from '../../../src/messages/ldap-resolver.js';
import type { WebhookStoreProtocol } from '../../../src/messages/webhook-store.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { checkJsonObjectBody } from '../../../src/webhooks/body.js';
import { unavailableAs503 } from '../../../src/webhooks/errors.js';
import { parseVisibilityUpdate, VisibilityRequestError } from '../../../src/wiki/visibility.js';

export interface WikiVisibilityRouteDeps {
  readonly config: Pick<Config, 'http'>;
  readonly resolver: Remote<LdapResolverProtocol>;
  /** Authenticates global admins. */
  readonly logins: Pick<Remote<WebhookStoreProtocol>, 'authenticateAdmin'>;
  readonly log: Logger;
}

const BASE = '/edu-api/admin/wiki-visibility';
const NO_STORE = { 'cache-control': 'no-store' };

export function registerWikiVisibilityRoutes(router: Router, deps: WikiVisibilityRouteDeps): void {
  const { resolver, log } = deps;

  /** A global admin's call: 401/403/503 before anything else, 503 while an actor it needs is down. */
  const asAdmin = (work: (ex: HttpExchange, admin: string, params: Record<string, string>) => Promise<void>): RouteHandler =>
    async (ex, params) => {
      try {
        const admin = authorizedOrThrow(await deps.logins.authenticateAdmin(ex.headers['authorization'], ex.clientAddress), ADMIN_CHALLENGE);
        await work(ex, admin.user, params);
      } catch (err) {
        throw unavailableAs503(err);
      }
    };

  router.add('GET', BASE, asAdmin(async (ex) => {
    ex.json(200, { shares: await resolver.listVisibility() }, NO_STORE);
  }));

  router.add('PUT', `${BASE}/:share`, asAdmin(async (ex, admin, params) => {
    const share = decodeShareName(params['share']!);
    const body = checkJsonObjectBody(ex.headers['content-type'], await ex.readBody());
    if (!body.ok) throw body.error;
    let settings;
    try {
      settings = parseVisibilityUpdate(body.object);
    } catch (err) {
      if (err instanceof VisibilityRequestError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
    const stored = await resolver.setVisibility(share, settings);
    if (stored === null) throw new HttpError(404, 'share_not_found', `'${share}' is not a share in smb.shares of config.yml`);
    log.info({ audit: 'wiki_visibility_changed', admin, ...stored }, 'wiki visibility changed');
    ex.json(200, stored, NO_STORE);
  }), { bodyLimit: deps.config.http.max_body });
}

function decodeShareName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'invalid_request', 'share: the share name in the path is not valid percent-encoded UTF-8');
  }
}
