// GET /readyz: 200 when every dependency the service needs answers
// (Elasticsearch when enabled, the directory, each SMB backend), else 503;
// the body has a state per dependency, the reasons are in the log
// (src/metrics/readiness.ts). /healthz is liveness.
import type { Router } from '../../../src/http/router.js';
import type { SupervisorProtocol } from '../../kinds.js';
import type { Remote } from '../../../src/runtime/rpc.js';

export function registerReadinessRoutes(router: Router, supervisor: Remote<SupervisorProtocol>): void {
  router.add('GET', '/readyz', async (ex) => {
    const report = await supervisor.readiness();
    ex.json(report.status === 'ready' ? 200 : 503, report, { 'cache-control': 'no-store' });
  });
}
