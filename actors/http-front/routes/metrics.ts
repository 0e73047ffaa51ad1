// GET /metrics: Prometheus text of the whole service, merged by the supervisor
// from its own registry and every actor's (see src/metrics/snapshot.ts).
import type { Router } from '../../../src/http/router.js';
import type { SupervisorProtocol } from '../../kinds.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../../src/metrics/snapshot.js';
import type { Remote } from '../../../src/runtime/rpc.js';

export function registerMetricsRoutes(router: Router, supervisor: Remote<SupervisorProtocol>): void {
  router.add('GET', '/metrics', async (ex) => {
    ex.send(200, await supervisor.metrics(), { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
  });
}
