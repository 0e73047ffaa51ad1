// The main thread's own metrics: the process (RSS, CPU, event loop, heap:
// prom-client's default metrics, collected once here rather than per
// thread) and the state of every actor and pool as the health report has it.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ActorHealth, HealthReport } from '../runtime/health.js';
import type { MetricSnapshot } from './snapshot.js';
import { registerStatMetrics, type StatMetric } from './stat-metrics.js';

const byActor = (report: HealthReport, read: (a: ActorHealth) => number): Record<string, number> =>
  Object.fromEntries(Object.entries(report.actors).map(([name, actor]) => [name, read(actor)]));

const byPool = (report: HealthReport, field: string): Record<string, number> =>
  Object.fromEntries(Object.entries(report.actors)
    .filter(([, a]) => a.kind === 'pool' && typeof a.details?.[field] === 'number')
    .map(([name, a]) => [name, a.details![field] as number]));

const supervisorMetrics: readonly StatMetric<HealthReport>[] = [
  { name: 'fileproxy_actor_up', help: '1 while the actor or pool is running, else 0', type: 'gauge', label: 'actor', read: (r) => byActor(r, (a) => Number(a.state === 'running')) },
  { name: 'fileproxy_actor_restarts_total', help: 'Restarts of each actor after a crash', type: 'counter', label: 'actor', read: (r) => byActor(r, (a) => a.restarts) },
  { name: 'fileproxy_pool_threads', help: 'Worker threads of each pool', type: 'gauge', label: 'pool', read: (r) => byPool(r, 'threads') },
  { name: 'fileproxy_pool_queued_tasks', help: 'Tasks waiting for a worker of each pool', type: 'gauge', label: 'pool', read: (r) => byPool(r, 'queued') },
  { name: 'fileproxy_pool_completed_tasks_total', help: 'Tasks each pool has completed', type: 'counter', label: 'pool', read: (r) => byPool(r, 'completed') },
  { name: 'fileproxy_pool_utilization', help: 'Share of time the workers of each pool were busy (0 to 1)', type: 'gauge', label: 'pool', read: (r) => byPool(r, 'utilization') },
];

export class SupervisorMetrics {
  private readonly registry = new Registry();
  private report: HealthReport = { status: 'ok', actors: {} };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    registerStatMetrics(this.registry, () => this.report, supervisorMetrics);
  }

  /** This thread's metrics, with the actor and pool states of `report`. */
  snapshot(report: HealthReport): Promise<MetricSnapshot> {
    this.report = report;
    return this.registry.getMetricsAsJSON();
  }
}
