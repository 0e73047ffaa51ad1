// The http-front actor: the uWebSockets.js server and its routes.
import type { Config } from '../../src/config/index.js';
import { Router } from '../../src/http/router.js';
import type { DedupeProtocol } from '../../src/messages/dedupe.js';
import type { HttpFrontProtocol } from '../../src/messages/http-front.js';
import type { LdapResolverProtocol } from '../../src/messages/ldap-resolver.js';
import type { SupervisorProtocol } from '../../src/messages/supervisor.js';
import type { WebhookStoreProtocol } from '../../src/messages/webhook-store.js';
import { runActor } from '../../src/runtime/actor.js';
import { WebhookClientReplica } from '../../src/webhooks/replica.js';
import { registerAdminUiRoutes } from './routes/admin-ui.js';
import { registerAdminWebhookClientRoutes } from './routes/admin-webhook-clients.js';
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

  const handlers: HttpFrontProtocol = {
    replaceWebhookClients: async (clients) => webhookClients.replace(clients),
  };
  const server = await HttpServer.listen(config.http, router, log);
  return {
    handlers,
    health: () => ({ ...server.stats(), webhookClients: webhookClients.size ?? 'not loaded' }),
    stop: (timeoutMs) => server.drain(timeoutMs),
    abort: () => server.closeNow(),
  };
});
