// Metrics read from an actor's own numbers at scrape time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { registerStatMetrics, type StatMetric } from '../../../src/metrics/stat-metrics.js';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

interface Stats { queued: number; results: Record<string, number> }

const metrics: StatMetric<Stats>[] = [
  { name: 'test_queued', help: 'queued', type: 'gauge', read: (s) => s.queued },
  { name: 'test_results_total', help: 'results', type: 'counter', label: 'result', read: (s) => s.results },
];

describe('registerStatMetrics', () => {
  it('reads the numbers anew at every scrape, as gauges and labelled counters with their types', async () => {
    const stats: Stats = { queued: 2, results: { applied: 5, dropped: 0 } };
    const registry = new Registry();
    registerStatMetrics(registry, () => stats, metrics);

    let text = await registry.metrics();
    assert.match(text, /# TYPE test_queued gauge/);
    assert.match(text, /# TYPE test_results_total counter/);
    let samples = parsePrometheusText(text);
    assert.equal(sampleValue(samples, 'test_queued'), 2);
    assert.equal(sampleValue(samples, 'test_results_total', { result: 'applied' }), 5);
    assert.equal(sampleValue(samples, 'test_results_total', { result: 'dropped' }), 0);

    stats.queued = 0;
    stats.results = { applied: 9, dropped: 1 };
    text = await registry.metrics();
    samples = parsePrometheusText(text);
    assert.equal(sampleValue(samples, 'test_queued'), 0);
    assert.equal(sampleValue(samples, 'test_results_total', { result: 'applied' }), 9, 'a counter shows the total, not the sum of scrapes');
    assert.equal(sampleValue(samples, 'test_results_total', { result: 'dropped' }), 1);
  });

  it('drops label values that are gone from the stats', async () => {
    let status = 'rebuilding';
    const registry = new Registry();
    registerStatMetrics(registry, () => status, [{ name: 'test_status', help: 'status', type: 'gauge', label: 'status', read: (s) => ({ [s]: 1 }) }]);
    assert.equal(sampleValue(parsePrometheusText(await registry.metrics()), 'test_status', { status: 'rebuilding' }), 1);
    status = 'ready';
    const samples = parsePrometheusText(await registry.metrics());
    assert.deepEqual(samples.filter((s) => s.name === 'test_status').map((s) => s.labels), [{ status: 'ready' }]);
  });
});
