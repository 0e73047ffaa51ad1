// The http-front actor: the HTTP server and its routes.
import { Registry } from 'prom-client';
import { Router } from '../../src/http/router.js';
import type { HttpFrontProtocol } from './protocol.js';
import { httpFrontMetrics } from './metrics.js';
import type { ActorContextOf } from '../kinds.js';
import { HttpRequestMetrics } from './request-metrics.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { PeerMemory } from '../../src/runtime/peer-memory.js';
import { LoopDelayReporter } from '../../src/pacing/loop-delay-reporter.js';
import { WebhookClientReplica } from '../../src/webhooks/replica.js';
import { registerRoutes } from './routes/index.js';
import { HttpServer } from './server.js';
import { chooseTransport } from './transport.js';

runActor(async (ctx: ActorContextOf<'http-front'>) => {
  const { config, log } = ctx;
  const router = new Router();
  // Filled and replaced by the webhook-store (see actors/webhook-store/main.ts).
  const webhookClients = new WebhookClientReplica();
  const { dav, wiki } = registerRoutes(router, { config, secrets: ctx.secrets, log, name: ctx.name, peer: ctx.peer, link: ctx.link, webhookClients });

  const handlers: HttpFrontProtocol = {
    replaceWebhookClients: async (version, clients, validUntil) => webhookClients.replace(version, clients, validUntil),
    renewWebhookClients: async (version, validUntil) => webhookClients.renew(version, validUntil),
  };
  // How long this thread's requests wait for a core, told to the reconciler, which paces background work by it.
  const reconciler = ctx.peer('reconciler');
  const board = new PeerMemory({ peer: 'reconciler', link: ctx.link('reconciler'), fetch: async () => new Int32Array(await reconciler.loopDelayBoard()) });
  const loopDelay = new LoopDelayReporter(() => board.get());
  const transport = chooseTransport(config.http.transport, log);
  const registry = new Registry();
  const server = await HttpServer.listen(config.http, router, log, transport,
    { sharedPort: config.workers.http_front > 1, metrics: new HttpRequestMetrics(registry) });
  const smbStats = () => ({ smbSessions: dav.smb.pool.size, smbSessionsRefused: dav.smb.pool.refusedClaims });
  registerStatMetrics(registry, () => ({ ...server.stats(), ...smbStats() }), httpFrontMetrics);
  return {
    handlers: servingMetrics(handlers, registry),
    health: () => ({
      ...server.stats(),
      ...smbStats(),
      webhookClients: webhookClients.size ?? 'not loaded',
      webhookClientList: webhookClients.state,
      liveAcl: wiki.liveAcl() ?? 'off (wiki.live_acl.enabled is false)',
    }),
    stop: async (timeoutMs) => {
      loopDelay.stop();
      await server.drain(timeoutMs);
      await dav.close();
    },
    abort: () => server.closeNow(),
  };
});
