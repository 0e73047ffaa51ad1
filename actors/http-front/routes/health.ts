// GET /healthz: every actor's and pool's state, from the supervisor.
import type { Router } from '../../../src/http/router.js';
import type { SupervisorProtocol } from '../../../src/messages/supervisor.js';
import type { Remote } from '../../../src/runtime/rpc.js';

export function registerHealthRoutes(router: Router, supervisor: Remote<SupervisorProtocol>): void {
  router.add('GET', '/healthz', async (ex) => {
    const report = await supervisor.health();
    ex.json(report.status === 'ok' ? 200 : 503, report, { 'cache-control': 'no-store' });
  });
}
