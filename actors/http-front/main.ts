// The http-front actor: the HTTP server and its routes.
import type { Config } from '../../src/config/index.js';
import { Router } from '../../src/http/router.js';
import type { DavStateProtocol } from '../../src/messages/dav-state.js';
import type { DedupeProtocol } from '../../src/messages/dedupe.js';
import type { HttpFrontProtocol } from '../../src/messages/http-front.js';
import type { LdapResolverProtocol } from '../../src/messages/ldap-resolver.js';
import type { ReconcilerProtocol } from '../../src/messages/reconciler.js';
import type { SupervisorProtocol } from '../../src/messages/supervisor.js';
import type { WebhookStoreProtocol } from '../../src/messages/webhook-store.js';
import { runActor } from '../../src/runtime/actor.js';
import { WebhookClientReplica } from '../../src/webhooks/replica.js';
import { registerAdminUiRoutes } from './routes/admin-ui.js';
import { registerAdminWebhookClientRoutes } from './routes/admin-webhook-clients.js';
import { registerDavRoutes } from './routes/dav.js';
import { registerWikiVisibilityRoutes } from './routes/admin-wiki-visibility.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerUserEventRoutes } from './routes/user-events.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerWikiRoutes } from './routes/wiki.js';
import { HttpServer } from './server.js';

runActor<Config>(async (ctx) => {
  const { config, log } = ctx;
  const router = new Router();
  registerHealthRoutes(router, ctx.peer<SupervisorProtocol>('supervisor'));

  // Filled and replaced by the webhook-store (see actors/webhook-store/main.ts).
  const webhookClients = new WebhookClientReplica();
  const store = ctx.peer<WebhookStoreProtocol>('webhook-store');
  registerWebhookRoutes(router, { config, clients: webhookClients, dedupe: ctx.peer<DedupeProtocol>('dedupe'), store, log });
  registerAdminWebhookClientRoutes(router, { config, store, log });
  registerUserEventRoutes(router, store);
  const resolver = ctx.peer<LdapResolverProtocol>('ldap-resolver');
  registerWikiRoutes(router, { config, resolver, log });
  registerWikiVisibilityRoutes(router, { config, resolver, logins: store, log });
  registerAdminUiRoutes(router, { config, logins: store, log });
  const dav = registerDavRoutes(router, {
    config, davState: ctx.peer<DavStateProtocol>('dav-state'), reconciler: ctx.peer<ReconcilerProtocol>('reconciler'), log,
  });

  const handlers: HttpFrontProtocol = {
    replaceWebhookClients: async (clients) => webhookClients.replace(clients),
  };
  // One front: node:http, which parses every WebDAV method. Several fronts share the port only with uWS
  // (SO_REUSEPORT), whose 20.30 build drops PROPFIND, MKCOL, LOCK, ... (GET, PUT and DELETE still work).
  const transport = config.workers.http_front === 1 ? 'node' : 'uws';
  if (transport === 'uws') log.warn('workers.http_front > 1: WebDAV serves only OPTIONS, GET, HEAD, PUT and DELETE');
  const server = await HttpServer.listen(config.http, router, log, transport);
  return {
    handlers,
    health: () => ({ ...server.stats(), webhookClients: webhookClients.size ?? 'not loaded' }),
    stop: async (timeoutMs) => {
      await server.drain(timeoutMs);
      await dav.close();
    },
    abort: () => server.closeNow(),
  };
});
