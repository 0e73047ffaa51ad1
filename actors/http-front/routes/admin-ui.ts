// The admin settings page (spec 4.4 and 5: webhook clients, wiki visibility):
//   GET /admin                              → redirect to /admin/
//   GET /admin/ and /admin/<asset>          → the static files of src/admin-ui/
//   GET /edu-api/admin/webhook-user-agents  → { user_agents: [...] } (webhooks.supported_user_agents), for the
//                                             page's drop-down; global admins only, like the APIs it feeds.
// The page talks only to the admin APIs; it keeps the admin's credentials in memory
// and sends them as HTTP Basic on each call. Its files are read once at start-up.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import { installRoot } from '../../../src/common/install-root.js';
import type { Config } from '../../../src/config/index.js';
import type { HttpExchange } from '../../../src/http/exchange.js';
import { HttpError } from '../../../src/http/http-error.js';
import type { Router } from '../../../src/http/router.js';
import { adminCall, type AdminLogins } from './api-calls.js';

interface AdminUiRouteDeps {
  readonly config: Pick<Config, 'webhooks'>;
  /** Authenticates global admins. */
  readonly logins: AdminLogins;
  readonly log: Logger;
}

/** src/admin-ui/ of the installation; the page's files are served as they are (no build step). */
const ADMIN_UI_DIR = join(installRoot(), 'src', 'admin-ui');

const PAGE_PATH = '/admin/';
const USER_AGENTS_PATH = '/edu-api/admin/webhook-user-agents';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Only the page's own script and style; no inline code, no other origin, no framing, no form
 * posts (the sign-in form is handled by the script, so a page without it can never submit
 * the password anywhere).
 */
const ADMIN_UI_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': ADMIN_UI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // File names carry no version: revalidate every time (cheap with the ETag).
  'cache-control': 'no-cache',
};

interface Asset {
  body: Buffer;
  headers: Record<string, string>;
}

export function registerAdminUiRoutes(router: Router, deps: AdminUiRouteDeps): void {
  const assets = loadAssets(ADMIN_UI_DIR, deps.log);

  router.add('GET', '/admin', (ex) => {
    ex.send(301, '', { location: PAGE_PATH, 'cache-control': 'no-cache' });
  });

  router.add('GET', `${PAGE_PATH}*`, (ex, params) => {
    if (assets === undefined) {
      throw new HttpError(500, 'admin_ui_missing', `the admin page's files are missing in ${ADMIN_UI_DIR}; reinstall the service`);
    }
    const name = params['*'] === '' ? 'index.html' : params['*']!;
    const asset = assets.get(name);
    if (asset === undefined) throw new HttpError(404, 'not_found', `no file ${name} on the admin page`);
    sendAsset(ex, asset);
  });

  const supported = deps.config.webhooks.supported_user_agents;
  router.add('GET', USER_AGENTS_PATH, adminCall(deps.logins, async (ex) => {
    ex.json(200, { user_agents: supported }, { 'cache-control': 'no-store' });
  }));
}

function sendAsset(ex: HttpExchange, asset: Asset): void {
  if (ex.headers['if-none-match'] === asset.headers['etag']) {
    ex.send(304, '', { ...PAGE_HEADERS, etag: asset.headers['etag']! });
    return;
  }
  if (ex.method === 'HEAD') ex.head(200, asset.headers, asset.body.length);
  else ex.send(200, asset.body, asset.headers);
}

/** The files of the page folder by name, or undefined (logged) when the folder is missing or has no index.html. */
function loadAssets(dir: string, log: Logger): Map<string, Asset> | undefined {
  const assets = new Map<string, Asset>();
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const contentType = CONTENT_TYPES[extname(entry.name)];
      if (!entry.isFile() || contentType === undefined) continue;
      const body = readFileSync(join(dir, entry.name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      assets.set(entry.name, { body, headers: { ...PAGE_HEADERS, 'content-type': contentType, etag } });
    }
  } catch (err) {
    log.error({ err, dir }, 'admin page files cannot be read; /admin/ answers 500');
    return undefined;
  }
  if (!assets.has('index.html')) {
    log.error({ dir }, 'admin page has no index.html; /admin/ answers 500');
    return undefined;
  }
  return assets;
}
