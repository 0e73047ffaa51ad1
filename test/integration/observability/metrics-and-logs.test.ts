// /metrics after real traffic, and the request log line, on a service against the testbed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startService, waitFor, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { parsePrometheusText, sampleValue, type Sample } from '../../unit/metrics/prometheus-text.js';
import { account, DavClient } from '../webdav/dav-client.js';
import { AdminApi, nowSeconds, postWebhook, type ClientEntry, type WebhookPost } from '../webhooks/api.js';

const MAX_BODY = 2048;

async function scrape(service: RunningService): Promise<Sample[]> {
  const res = await fetch(`${service.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

/** The service's JSON log lines with this message. */
function logLines(service: RunningService, msg: string): Record<string, unknown>[] {
  return service.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === msg);
}

describe('metrics and request logs of a running service', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let client: ClientEntry;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({ http: { max_body: MAX_BODY } });
    client = await AdminApi.asAdmin(service.url, env).register('service-eventhandler');
  });
  after(async () => {
    assert.equal(await service.stop(), 0);
  });

  const send = (post: WebhookPost = {}) =>
    postWebhook(service.url, { key: client.api_key, userAgent: 'service-eventhandler/2.0', body: '{"username":"anna"}', ...post });

  it('counts requests per route pattern and status, webhook outcomes per check, and reports every actor\'s numbers', async () => {
    const duplicateId = randomUUID();
    const statuses = [
      (await send({ eventId: duplicateId })).status,
      (await send({ eventId: duplicateId })).status,
      (await send({ key: undefined })).status,
      (await send({ key: 'not-a-key' })).status,
      (await send({ timestamp: nowSeconds() - 3600 })).status,
      (await send({ contentType: 'text/plain' })).status,
      (await send({ body: `{"username":"anna","pad":"${'x'.repeat(MAX_BODY)}"}` })).status,
      (await send()).status,
    ];
    assert.deepEqual(statuses, [200, 409, 400, 401, 401, 415, 413, 200]);
    for (const user of ['anna', 'carla']) {
      assert.equal((await fetch(`${service.url}/edu-api/users/${user}/events`)).status, 401);
    }
    const anna = new DavClient(service, account(env, 'anna'));
    assert.equal((await anna.request('PROPFIND', '', { headers: { depth: '0' } })).status, 207);

    // The reconciler's first pass starts a second after start-up.
    await waitFor(async () => sampleValue(await scrape(service), 'fileproxy_reconciler_passes_total') >= 1, 30_000);
    const samples = await scrape(service);
    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);

    const intake = { route: '/edu-api/webhook', method: 'POST' };
    assert.equal(value('fileproxy_http_request_duration_seconds_count', { ...intake, status: '200' }), 2);
    assert.equal(value('fileproxy_http_request_duration_seconds_count', { ...intake, status: '401' }), 2);
    assert.ok(value('fileproxy_http_request_duration_seconds_sum', { ...intake, status: '200' }) > 0);
    assert.equal(value('fileproxy_http_request_duration_seconds_bucket', { ...intake, status: '200', le: '+Inf' }), 2);
    assert.equal(value('fileproxy_http_request_duration_seconds_count', { route: '/edu-api/users/:username/events', method: 'GET', status: '401' }), 2,
      'one series for the route pattern, not one per user');
    assert.equal(value('fileproxy_http_request_duration_seconds_count', { route: '/dav/*', method: 'PROPFIND', status: '207' }), 1);
    assert.ok(value('fileproxy_http_request_duration_seconds_count', { route: '/edu-api/admin/webhook-clients', method: 'POST', status: '201' }) >= 1);

    for (const [status, outcome] of [['200', 'accepted'], ['409', 'duplicate_event'], ['400', 'missing_header'], ['401', 'invalid_key'],
      ['401', 'timestamp_expired'], ['415', 'unsupported_media_type'], ['413', 'body_too_large']]) {
      assert.equal(value('fileproxy_webhook_requests_total', { status: status!, outcome: outcome! }), outcome === 'accepted' ? 2 : 1, outcome);
    }

    assert.equal(value('fileproxy_webhook_dedupe_ring_size'), 2, 'the two accepted event ids');
    assert.equal(value('fileproxy_webhook_dedupe_ring_capacity'), 100);
    assert.equal(value('fileproxy_user_events_cached'), 2, 'both accepted events name a user');
    assert.equal(value('fileproxy_webhook_clients'), 1);
    assert.equal(value('fileproxy_smb_sessions', { pool: 'webdav' }), 1, 'anna\'s WebDAV session');

    assert.equal(value('fileproxy_index_queue_depth'), 0);
    assert.equal(value('fileproxy_post_write_changes_total', { result: 'dropped' }), 0);
    assert.equal(value('fileproxy_index_status', { status: 'ready' }), 1);
    // The testbed's node has a write queue of 10,000: nothing was pushed back (test/integration/reconcile/back-pressure.test.ts pushes).
    assert.equal(value('fileproxy_index_back_offs_total'), 0);
    assert.equal(value('fileproxy_index_resent_operations_total'), 0);
    assert.ok(value('fileproxy_reconciler_last_pass_pages', { result: 'listed' }) > 0);
    assert.equal(value('fileproxy_reconciler_last_pass_errors'), 0);
    assert.ok(value('fileproxy_reconciler_last_pass_duration_seconds') > 0);

    for (const actor of ['http-front', 'dedupe', 'webhook-store', 'ldap-resolver', 'reconciler', 'dav-state', 'smb-reader', 'indexer']) {
      assert.equal(value('fileproxy_actor_up', { actor }), 1, actor);
      assert.equal(value('fileproxy_actor_restarts_total', { actor }), 0, actor);
    }
    assert.ok(value('fileproxy_pool_completed_tasks_total', { pool: 'smb-reader' }) > 0, 'the pass read pages through the pool');
    // The first pass finds the testbed's pages indexed already: the indexer pool may have had nothing to write.
    assert.equal(value('fileproxy_pool_max_threads', { pool: 'indexer' }), 2);
    assert.equal(value('fileproxy_pool_queued_tasks', { pool: 'indexer' }), 0);
    // Started for the pass, at most workers.smb_readers (2 by default); they end after 30 s without a task.
    const poolThreads = value('fileproxy_pool_threads', { pool: 'smb-reader' });
    assert.ok(poolThreads >= 1 && poolThreads <= 2, `${poolThreads} smb-reader threads`);
    for (const thread of ['http-front', 'reconciler', 'smb-reader#1']) assert.ok(value('fileproxy_thread_heap_used_bytes', { thread }) > 1024 * 1024, thread);
    assert.ok(value('process_resident_memory_bytes') > 10 * 1024 * 1024);
    assert.equal(samples.filter((s) => s.name === 'process_resident_memory_bytes').length, 1, 'process metrics come once, from the main thread');
  });

  it('writes one JSON line per request (id, method, route, status, duration, outcome) and echoes X-Request-Id', async () => {
    const traced = await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'probe-7f3a' } });
    assert.equal(traced.status, 200);
    assert.equal(traced.headers.get('x-request-id'), 'probe-7f3a');
    const refused = await send({ key: 'wrong-key-value' });
    assert.equal(refused.status, 401);
    const generated = refused.headers.get('x-request-id') ?? '';
    assert.match(generated, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const insane = await fetch(`${service.url}/healthz`, { headers: { 'x-request-id': 'has spaces "and quotes"' } });
    assert.notEqual(insane.headers.get('x-request-id'), 'has spaces "and quotes"');

    await waitFor(async () => logLines(service, 'request').some((l) => l['req_id'] === generated), 5_000);
    const lines = logLines(service, 'request');
    const health = lines.find((l) => l['req_id'] === 'probe-7f3a');
    assert.ok(health);
    assert.deepEqual({ ...health, time: 0, duration_ms: 0, pid: 0 }, {
      level: 30, time: 0, pid: 0, actor: 'http-front', msg: 'request',
      req_id: 'probe-7f3a', method: 'GET', route: '/healthz', status: 200, duration_ms: 0, outcome: 'ok',
    });
    assert.equal(typeof health['duration_ms'], 'number');
    const webhook = lines.find((l) => l['req_id'] === generated)!;
    assert.deepEqual([webhook['route'], webhook['status'], webhook['outcome']], ['/edu-api/webhook', 401, 'invalid_key']);
    assert.ok(!service.output().includes('wrong-key-value'), 'a sent key is in no log line');
    assert.ok(!service.output().includes(client.api_key), 'a client\'s key is in no log line');
  });
});

describe('metrics of several http-front threads', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ workers: { http_front: 2 } });
  });
  after(async () => {
    assert.equal(await service.stop(), 0);
  });

  it('adds up the requests every front answered', async () => {
    const before = await scrape(service);
    const count = (samples: Sample[]) => samples
      .filter((s) => s.name === 'fileproxy_http_request_duration_seconds_count' && s.labels['route'] === '/openapi.json')
      .reduce((sum, s) => sum + s.value, 0);
    assert.equal(count(before), 0);
    // A new connection each time, so that the kernel spreads them over both fronts' sockets.
    for (let i = 0; i < 24; i++) {
      const res = await fetch(`${service.url}/openapi.json`, { headers: { connection: 'close' } });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    const samples = await scrape(service);
    assert.equal(count(samples), 24);
    for (const actor of ['http-front#1', 'http-front#2']) assert.equal(sampleValue(samples, 'fileproxy_actor_up', { actor }), 1);
  });
});
