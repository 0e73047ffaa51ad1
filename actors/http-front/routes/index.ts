// Every route of an http-front, registered in one place so that tests can
// build the same router the front serves (the OpenAPI document must describe
// each of them).
import type { Logger } from 'pino';
import { NegotiateAuth } from '../../../src/auth/negotiate.js';
import type { Config } from '../../../src/config/index.js';
import type { Router } from '../../../src/http/router.js';
import type { PeersOf } from '../../kinds.js';
import type { PeerLinkLookup, PeerLookup } from '../../../src/runtime/actor.js';
import type { ServiceSecrets } from '../../../src/runtime/control.js';
import type { WebhookClientLookup } from '../../../src/webhooks/key-index.js';
import { registerAdminUiRoutes } from './admin-ui.js';
import { registerAdminWebhookClientRoutes } from './admin-webhook-clients.js';
import { registerWikiVisibilityRoutes } from './admin-wiki-visibility.js';
import type { DavService } from '../../../src/webdav/methods/service.js';
import { registerDavRoutes } from '../../../src/webdav/methods/routes.js';
import { registerHealthRoutes } from './health.js';
import { registerMetricsRoutes } from './metrics.js';
import { registerOpenApiRoutes } from './openapi.js';
import { registerReadinessRoutes } from './readyz.js';
import { registerUserEventRoutes } from './user-events.js';
import { registerWebhookRoutes } from '../../../src/webhooks/routes.js';
import { registerWikiRoutes, type WikiRoutes } from '../../../src/search/routes.js';

interface FrontRouteDeps {
  config: Config;
  /** The Elasticsearch credentials (wiki routes) and the delegation keytab (WebDAV, HTTP Negotiate). */
  secrets: ServiceSecrets;
  log: Logger;
  /** This thread's instance name (`http-front#n`). */
  name: string;
  /** A typed client for a peer actor (the actor context's `peer`). */
  peer: PeerLookup<PeersOf<'http-front'>>;
  /** Whether a peer is connected, and its incarnation (the actor context's `link`). */
  link: PeerLinkLookup<PeersOf<'http-front'>>;
  /** This thread's replica of the webhook clients, for the intake's key checks. */
  webhookClients: WebhookClientLookup;
}

/** What the front keeps of its routes: the WebDAV service, whose SMB sessions it closes when it stops, and the wiki's. */
interface FrontRoutes {
  dav: DavService;
  wiki: WikiRoutes;
}

/** Registers every route. */
export function registerRoutes(router: Router, deps: FrontRouteDeps): FrontRoutes {
  const { config, secrets, log, peer, link, webhookClients } = deps;
  const supervisor = peer('supervisor');
  registerHealthRoutes(router, supervisor, config);
  registerReadinessRoutes(router, supervisor);
  registerMetricsRoutes(router, supervisor);
  registerOpenApiRoutes(router);
  // One acceptor per thread (its keytab parsed once); the replay cache is the service's one, in the supervisor.
  const negotiate = NegotiateAuth.fromConfig(config, secrets.delegationKeytab, (...seen) => supervisor.admitAuthenticator(...seen));

  const store = peer('webhook-store');
  registerWebhookRoutes(router, { config, front: deps.name, clients: webhookClients, dedupe: peer('dedupe'), dedupeLink: link('dedupe'), store, log });
  registerAdminWebhookClientRoutes(router, { config, store, log });
  registerUserEventRoutes(router, store);
  const resolver = peer('ldap-resolver');
  const reconciler = peer('reconciler');
  const dav = registerDavRoutes(router, {
    config, davState: peer('dav-state'), reconciler, resolver, resolverLink: link('ldap-resolver'), secrets, negotiate, log,
  });
  const wiki = registerWikiRoutes(router, {
    config, secrets, resolver, resolverLink: link('ldap-resolver'), negotiate, reconciler, smb: { client: dav.smb, logons: dav.logons }, log,
  });
  registerWikiVisibilityRoutes(router, { config, resolver, logins: store, log });
  registerAdminUiRoutes(router, { config, logins: store, log });
  return { dav, wiki };
}
