// Metrics of several threads merge into one Prometheus text: what each thread
// hands over (getMetricsAsJSON, structured-cloned as across a MessagePort) adds up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { HttpRequestMetrics } from '../../../actors/http-front/request-metrics.js';
import { mergeSnapshots, servingMetrics } from '../../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../../src/metrics/stat-metrics.js';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

/** One http-front thread's registry after `requests` (route, status, outcome, ms). */
function front(requests: [string, number, string, number][], inFlight: number): Registry {
  const registry = new Registry();
  const metrics = new HttpRequestMetrics(registry);
  for (const [route, status, outcome, durationMs] of requests) {
    metrics.record({ requestId: 'r', method: route === '/edu-api/webhook' ? 'POST' : 'GET', route, status, durationMs, outcome });
  }
  registerStatMetrics(registry, () => ({ inFlight }), [{ name: 'test_in_flight', help: 'in flight', type: 'gauge', read: (s) => s.inFlight }]);
  return registry;
}

describe('merging the metrics of several threads', () => {
  it('adds up request histograms, webhook outcomes and gauges of two fronts, and keeps one actor\'s own series', async () => {
    const one = front([['/healthz', 200, 'ok', 2], ['/edu-api/webhook', 401, 'invalid_key', 0.4], ['/edu-api/webhook', 200, 'ok', 0.8]], 1);
    const two = front([['/healthz', 200, 'ok', 30], ['/edu-api/webhook', 401, 'invalid_key', 0.3], ['/edu-api/webhook', 409, 'duplicate_event', 0.2]], 2);
    const dedupe = new Registry();
    registerStatMetrics(dedupe, () => ({ size: 7 }), [{ name: 'test_ring_size', help: 'ring', type: 'gauge', read: (s) => s.size }]);

    const snapshots = await Promise.all([one, two, dedupe].map(async (r) => structuredClone(await r.getMetricsAsJSON())));
    const samples = parsePrometheusText(await mergeSnapshots(snapshots));

    const healthz = { route: '/healthz', method: 'GET', status: '200' };
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_count', healthz), 2);
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_sum', healthz), 0.032);
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_bucket', { ...healthz, le: '0.005' }), 1);
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_bucket', { ...healthz, le: '0.05' }), 2);
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_bucket', { ...healthz, le: '+Inf' }), 2);

    assert.equal(sampleValue(samples, 'fileproxy_webhook_requests_total', { status: '401', outcome: 'invalid_key' }), 2);
    assert.equal(sampleValue(samples, 'fileproxy_webhook_requests_total', { status: '200', outcome: 'accepted' }), 1);
    assert.equal(sampleValue(samples, 'fileproxy_webhook_requests_total', { status: '409', outcome: 'duplicate_event' }), 1);
    assert.equal(samples.filter((s) => s.name === 'fileproxy_webhook_requests_total').length, 3, 'only the intake route is counted by outcome');

    assert.equal(sampleValue(samples, 'test_in_flight'), 3);
    assert.equal(sampleValue(samples, 'test_ring_size'), 7);
  });

  it('counts methods a client made up under OTHER, so that the series stay bounded', async () => {
    const registry = new Registry();
    const metrics = new HttpRequestMetrics(registry);
    for (const method of ['BREW', 'SPAM', 'PROPFIND']) metrics.record({ requestId: 'r', method, route: 'unmatched', status: 405, durationMs: 1, outcome: 'method_not_allowed' });
    const samples = parsePrometheusText(await mergeSnapshots([await registry.getMetricsAsJSON()]));
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_count', { method: 'OTHER' }), 2);
    assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_count', { method: 'PROPFIND' }), 1);
  });

  it('serves a registry\'s snapshot as `metrics()` beside an actor\'s own handlers', async () => {
    const registry = new Registry();
    registerStatMetrics(registry, () => ({ n: 3 }), [{ name: 'test_n', help: 'n', type: 'gauge', read: (s) => s.n }]);
    const handlers = servingMetrics({ ping: async () => 'pong' }, registry);
    assert.equal(await handlers.ping(), 'pong');
    const samples = parsePrometheusText(await mergeSnapshots([await handlers.metrics()]));
    assert.equal(sampleValue(samples, 'test_n'), 3);
  });
});
