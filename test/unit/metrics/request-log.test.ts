// The http-front's per-request record on both transports: one JSON log line per
// request (id, method, route pattern, status, duration, outcome; never the path
// or a header), X-Request-Id echoed, the request metrics; what an error holds for the operator only, logged beside
// it and never answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { HttpServer } from '../../../actors/http-front/server.js';
import type { HttpTransport } from '../../../actors/http-front/transport.js';
import { HttpError } from '../../../src/http/http-error.js';
import { Router } from '../../../src/http/router.js';
import { HttpRequestMetrics, requestIdFrom } from '../../../actors/http-front/request-metrics.js';
import { freePort } from '../../support/ports.js';
import { transportsUnderTest } from '../../support/transports.js';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

interface LogLine { msg: string; [field: string]: unknown }

async function serve(transport: HttpTransport) {
  const lines: LogLine[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } });
  const router = new Router();
  router.add('GET', '/users/:name/events', (ex) => ex.json(200, { ok: true }));
  router.add('POST', '/edu-api/webhook', () => { throw new HttpError(401, 'invalid_key', 'unknown key'); });
  router.add('GET', '/broken', () => { throw new Error('bug with secret-looking text'); });
  router.add('GET', '/negotiate', () => { throw new HttpError(401, 'negotiate_keytab', 'send Basic credentials', {}, 'no key for HTTP/files.edu.test@EDU.TEST'); });
  const registry = new Registry();
  const port = await freePort();
  const http = { host: '127.0.0.1', port, max_body: 1024, header_timeout: 10_000, body_timeout: 30_000 };
  const server = await HttpServer.listen(http, router, log, transport, { metrics: new HttpRequestMetrics(registry) });
  const requests = () => lines.filter((l) => l.msg === 'request');
  return { url: `http://127.0.0.1:${port}`, server, registry, requests, lines };
}

describe('requestIdFrom', () => {
  it('keeps a plain token and replaces anything else with a new UUID', () => {
    for (const sane of ['abc-123', '0f8fad5b-d9cb-469f-a165-70867728950e', 'Root=1-5759e988', 'a'.repeat(128)]) {
      assert.equal(requestIdFrom(sane), sane);
    }
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const insane of [undefined, '', 'a'.repeat(129), 'two words', 'quote"d', 'line\nbreak', 'umläut', '<script>']) {
      assert.match(requestIdFrom(insane), uuid, JSON.stringify(insane));
    }
  });
});

for (const transport of transportsUnderTest(import.meta.url)) {
  describe(`per-request log line and metrics over ${transport.name}`, () => {
    it('logs one line per request with the route pattern and outcome, never the path or headers, and echoes X-Request-Id', async () => {
      const { url, server, registry, requests } = await serve(transport);
      try {
        const ok = await fetch(`${url}/users/anna.schmidt/events`, { headers: { 'x-request-id': 'trace-42', authorization: 'Basic c2VjcmV0' } });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('x-request-id'), 'trace-42');

        const refused = await fetch(`${url}/edu-api/webhook`, { method: 'POST', headers: { 'x-request-id': 'bad id with spaces', 'x-webhook-key': 'k3y' } });
        assert.equal(refused.status, 401);
        const generated = refused.headers.get('x-request-id');
        assert.match(generated ?? '', /^[0-9a-f-]{36}$/);

        assert.equal((await fetch(`${url}/nowhere`)).status, 404);
        assert.equal((await fetch(`${url}/broken`)).status, 500);

        const lines = requests();
        assert.equal(lines.length, 4);
        const [first, second, third, fourth] = lines;
        assert.deepEqual(Object.keys(first!).filter((k) => !['level', 'time', 'pid', 'hostname'].includes(k)).sort(),
          ['duration_ms', 'method', 'msg', 'outcome', 'req_id', 'route', 'status']);
        assert.deepEqual({ ...first, duration_ms: 0 }, { ...first, req_id: 'trace-42', method: 'GET', route: '/users/:name/events', status: 200, outcome: 'ok', duration_ms: 0 });
        assert.equal(typeof first!['duration_ms'], 'number');
        assert.ok((first!['duration_ms'] as number) >= 0);
        assert.deepEqual([second!['req_id'], second!['route'], second!['status'], second!['outcome']], [generated, '/edu-api/webhook', 401, 'invalid_key']);
        assert.deepEqual([third!['route'], third!['status'], third!['outcome']], ['unmatched', 404, 'not_found']);
        assert.deepEqual([fourth!['route'], fourth!['status'], fourth!['outcome']], ['/broken', 500, 'internal_error']);
        const all = JSON.stringify(lines);
        for (const secret of ['anna.schmidt', 'c2VjcmV0', 'k3y']) assert.ok(!all.includes(secret), `${secret} is in no request line`);

        const samples = parsePrometheusText(await registry.metrics());
        assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_count', { route: '/users/:name/events', method: 'GET', status: '200' }), 1);
        assert.equal(sampleValue(samples, 'fileproxy_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }), 1);
        assert.equal(sampleValue(samples, 'fileproxy_webhook_requests_total', { status: '401', outcome: 'invalid_key' }), 1);
      } finally {
        await server.drain(1_000);
      }
    });

    it('logs an error\'s detail for the operator with the request\'s id, and answers its message only', async () => {
      const { url, server, lines } = await serve(transport);
      try {
        const refused = await fetch(`${url}/negotiate`, { headers: { 'x-request-id': 'trace-43' } });
        assert.equal(refused.status, 401);
        assert.deepEqual(await refused.json(), { status: 'error', error: 'negotiate_keytab', message: 'send Basic credentials' });
        const logged = lines.find((l) => l.msg === 'request refused');
        assert.deepEqual([logged?.['req_id'], logged?.['outcome'], logged?.['detail']], ['trace-43', 'negotiate_keytab', 'no key for HTTP/files.edu.test@EDU.TEST']);
      } finally {
        await server.drain(1_000);
      }
    });
  });
}
