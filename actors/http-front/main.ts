// The http-front actor: the uWebSockets.js server and its routes.
import type { Config } from '../../src/config/index.js';
import { Router } from '../../src/http/router.js';
import type { SupervisorProtocol } from '../../src/messages/supervisor.js';
import { runActor } from '../../src/runtime/actor.js';
import { registerHealthRoutes } from './routes/health.js';
import { HttpServer } from './server.js';

runActor<Config>(async (ctx) => {
  const router = new Router();
  registerHealthRoutes(router, ctx.peer<SupervisorProtocol>('supervisor'));
  const server = await HttpServer.listen(ctx.config.http, router, ctx.log);
  return {
    health: () => server.stats(),
    stop: (timeoutMs) => server.drain(timeoutMs),
    abort: () => server.closeNow(),
  };
});
