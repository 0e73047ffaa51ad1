// "Nothing crashed" (fault and abuse suites): the service process runs, /healthz answers 200 with every actor and pool
// running, and no actor was restarted.
import assert from 'node:assert/strict';
import type { HealthReport } from '../../src/runtime/health.js';
import type { RunningService } from './service.js';

export async function assertNothingCrashed(service: RunningService): Promise<void> {
  assert.equal(service.process.exitCode, null, 'the service process still runs');
  const res = await fetch(`${service.url}/healthz`);
  const report = (await res.json()) as HealthReport;
  const states = Object.fromEntries(Object.entries(report.actors).map(([name, a]) => [name, `${a.state}, ${a.restarts} restarts`]));
  assert.equal(res.status, 200, JSON.stringify(states));
  for (const [name, state] of Object.entries(states)) assert.equal(state, 'running, 0 restarts', name);
}
