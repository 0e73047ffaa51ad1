// Wiki visibility per share (spec 5, second stage), managed by global admins:
//   GET /edu-api/admin/wiki-visibility          → { shares: [{ share, active, access_groups }] }
//   PUT /edu-api/admin/wiki-visibility/{share}  ← { active, access_groups? } → the stored entry
// The admin login is the one the webhook admin API uses (webhook-store actor,
// sessions shared by every thread); the settings live in the ldap-resolver,
// which applies them to every wiki call.
import type { Logger } from 'pino';
import type { Config } from '../../../src/config/index.js';
import { HttpError } from '../../../src/http/http-error.js';
import { readJsonObject } from '../../../src/http/json-body.js';
import type { Router } from '../../../src/http/router.js';
import type { LdapResolverProtocol } from '../../ldap-resolver/protocol.js';
import type { Remote } from '../../../src/runtime/rpc.js';
import { parseVisibilityUpdate, VisibilityRequestError } from '../../../src/viewer/visibility.js';
import { adminCall, type AdminLogins } from './api-calls.js';

interface WikiVisibilityRouteDeps {
  readonly config: Pick<Config, 'http'>;
  readonly resolver: Remote<LdapResolverProtocol>;
  /** Authenticates global admins. */
  readonly logins: AdminLogins;
  readonly log: Logger;
}

const BASE = '/edu-api/admin/wiki-visibility';
const NO_STORE = { 'cache-control': 'no-store' };

export function registerWikiVisibilityRoutes(router: Router, deps: WikiVisibilityRouteDeps): void {
  const { resolver, log } = deps;

  router.add('GET', BASE, adminCall(deps.logins, async (ex) => {
    ex.json(200, { shares: await resolver.listVisibility() }, NO_STORE);
  }));

  router.add('PUT', `${BASE}/:share`, adminCall(deps.logins, async (ex, admin, params) => {
    const share = decodeShareName(params['share']!);
    const body = await readJsonObject(ex);
    let settings;
    try {
      settings = parseVisibilityUpdate(body);
    } catch (err) {
      if (err instanceof VisibilityRequestError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
    const stored = await resolver.setVisibility(share, settings);
    if (stored === null) throw new HttpError(404, 'share_not_found', `'${share}' is not a share in smb.shares of config.yml`);
    log.info({ audit: 'wiki_visibility_changed', admin: admin.user, ...stored }, 'wiki visibility changed');
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
