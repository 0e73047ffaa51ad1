// The main thread's metrics: actor states and restarts and pool numbers from the health report, the actor threads'
// heaps, process metrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { mergeSnapshots } from '../../../src/metrics/snapshot.js';
import { SupervisorMetrics } from '../../../src/metrics/supervisor-metrics.js';
import type { HealthReport } from '../../../src/runtime/health.js';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

const report: HealthReport = {
  status: 'degraded',
  actors: {
    'http-front#1': { state: 'running', kind: 'actor', restarts: 0, uptimeSeconds: 10 },
    'dedupe': { state: 'restarting', kind: 'actor', restarts: 3, lastError: 'crashed: boom' },
    'smb-reader': { state: 'running', kind: 'pool', restarts: 0, details: { threads: 2, queued: 5, completed: 40, utilization: 0.25 } },
  },
};

describe('SupervisorMetrics', () => {
  it('reports each actor\'s state and restarts, each pool\'s numbers, and the process metrics', async () => {
    const metrics = new SupervisorMetrics();
    const heap = { ...getHeapStatistics(), used_heap_size: 7_000_000, total_physical_size: 9_000_000 };
    const samples = parsePrometheusText(await mergeSnapshots([await metrics.snapshot(report, { 'http-front#1': heap, 'http-front#1 (spare)': getHeapStatistics() })]));
    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);
    assert.equal(value('fileproxy_actor_up', { actor: 'http-front#1' }), 1);
    assert.equal(value('fileproxy_actor_up', { actor: 'dedupe' }), 0);
    assert.equal(value('fileproxy_actor_restarts_total', { actor: 'dedupe' }), 3);
    assert.equal(value('fileproxy_pool_threads', { pool: 'smb-reader' }), 2);
    assert.equal(value('fileproxy_pool_queued_tasks', { pool: 'smb-reader' }), 5);
    assert.equal(value('fileproxy_pool_completed_tasks_total', { pool: 'smb-reader' }), 40);
    assert.equal(value('fileproxy_pool_utilization', { pool: 'smb-reader' }), 0.25);
    assert.equal(samples.filter((s) => s.name.startsWith('fileproxy_pool_') && s.labels['pool'] !== 'smb-reader').length, 0, 'actors are no pools');
    assert.equal(value('fileproxy_thread_heap_used_bytes', { thread: 'http-front#1' }), 7_000_000);
    assert.equal(value('fileproxy_thread_heap_physical_bytes', { thread: 'http-front#1' }), 9_000_000);
    assert.ok(value('fileproxy_thread_heap_used_bytes', { thread: 'http-front#1 (spare)' }) > 0);
    assert.ok(value('process_resident_memory_bytes') > 0);
  });
});
