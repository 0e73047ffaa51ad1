// The uWS server on a real loopback socket: routing, body limits, draining.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { HttpServer } from '../../actors/http-front/server.js';
import { Router } from '../../src/http/router.js';
import { statusLinesOfOversizedPosts } from '../support/oversized-posts.js';
import { freePort } from '../support/ports.js';
import { transportsUnderTest, uwsHalfOnly } from '../support/transports.js';
import { trickle } from '../support/trickle.js';

for (const transport of transportsUnderTest(import.meta.url)) {
  describe(`http server over ${transport.name}`, () => {
    async function listen(router: Router) {
      const port = await freePort();
      const http = { host: '127.0.0.1', port, max_body: 1024, header_timeout: 10_000, body_timeout: 30_000 };
      const server = await HttpServer.listen(http, router, pino({ level: 'silent' }), transport);
      return { server, url: `http://127.0.0.1:${port}` };
    }

    it('drains in-flight requests on stop and refuses new connections', async () => {
      const router = new Router();
      let release!: () => void;
      const started = new Promise<void>((resolveStarted) => {
        router.add('GET', '/slow', async (ex) => {
          resolveStarted();
          await new Promise<void>((r) => { release = r; });
          ex.json(200, { finished: true });
        });
      });
      const { server, url } = await listen(router);
      const slow = fetch(`${url}/slow`);
      await started;
      const draining = server.drain(5_000);
      await assert.rejects(fetch(`${url}/slow`, { headers: { connection: 'close' } }));
      release();
      const res = await slow;
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { finished: true });
      await draining;
    });

    it('streams a large request body in and a large response out; HEAD and 204 carry no body', async () => {
      const router = new Router();
      router.add('PUT', '/upload', async (ex) => {
        const hash = createHash('sha256');
        let size = 0;
        for await (const chunk of ex.bodyChunks()) {
          hash.update(chunk);
          size += chunk.length;
        }
        ex.json(200, { size, sha256: hash.digest('hex') });
      }, { streamBody: true });
      // Enough blocks that the response waits for the client many times over (more than 10 waits made the old
      // code warn of a listener leak).
      const blocks = 160;
      router.add('GET', '/download', async (ex) => {
        if (ex.method === 'HEAD') return ex.head(200, { etag: '"d"' }, blocks * 65536);
        await ex.stream(200, {}, blocks * 65536, (async function* () {
          for (let i = 0; i < blocks; i++) yield Buffer.alloc(65536, i);
        })());
      });
      router.add('DELETE', '/nothing', (ex) => ex.send(204));
      const { server, url } = await listen(router);
      try {
        const body = randomBytes(3 * 1024 * 1024 + 17);
        const up = await fetch(`${url}/upload`, { method: 'PUT', body });
        assert.deepEqual(await up.json(), { size: body.length, sha256: createHash('sha256').update(body).digest('hex') });
        const warnings: string[] = [];
        const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
        process.on('warning', onWarning);
        try {
          const down = Buffer.from(await (await fetch(`${url}/download`)).arrayBuffer());
          assert.equal(down.length, blocks * 65536);
          assert.equal(down[blocks * 65536 - 1], blocks - 1);
          await new Promise((resolve) => setImmediate(resolve));
        } finally {
          process.off('warning', onWarning);
        }
        assert.deepEqual(warnings, [], 'each wait for the client takes its listeners away again');
        const head = await fetch(`${url}/download`, { method: 'HEAD' });
        assert.equal(head.headers.get('content-length'), String(blocks * 65536));
        assert.equal(head.headers.get('etag'), '"d"');
        const none = await fetch(`${url}/nothing`, { method: 'DELETE' });
        assert.equal(none.status, 204);
        assert.equal(none.headers.get('content-length'), null);
      } finally {
        await server.drain(1_000);
      }
    });

    it('answers 405 with Allow, and 413 for a body over the route limit without reading it', async () => {
      const router = new Router();
      router.add('POST', '/echo', async (ex) => ex.send(200, await ex.readBody()), { bodyLimit: 16 });
      const { server, url } = await listen(router);
      try {
        const wrongMethod = await fetch(`${url}/echo`);
        assert.equal(wrongMethod.status, 405);
        assert.equal(wrongMethod.headers.get('allow'), 'POST');

        const ok = await fetch(`${url}/echo`, { method: 'POST', body: 'hello' });
        assert.equal(await ok.text(), 'hello');

        // Declared too large: rejected before any body byte is read.
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(`${url}/echo`, { method: 'POST', headers: { 'content-length': '1000000' } }, (res) => resolve(res.statusCode ?? 0));
          req.on('error', reject);
          req.write('x'.repeat(100));
        });
        assert.equal(status, 413);

        // Chunked (no length declared): grows over the limit while streaming.
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('y'.repeat(10)));
            controller.enqueue(new TextEncoder().encode('y'.repeat(10)));
            controller.close();
          },
        });
        const chunked = await fetch(`${url}/echo`, { method: 'POST', body, duplex: 'half' } as RequestInit);
        assert.equal(chunked.status, 413);
        assert.equal(((await chunked.json()) as { error: string }).error, 'body_too_large');
      } finally {
        await server.drain(1_000);
      }
    });
  });
}

describe('http server over node: several http-front threads on one port', { skip: uwsHalfOnly }, () => {
  it('lets servers that share the port listen on it together and spreads new connections over them; a lone server fails on a taken port', async () => {
    const port = await freePort();
    const http = { host: '127.0.0.1', port, max_body: 1024, header_timeout: 10_000, body_timeout: 30_000 };
    const servers = await Promise.all(['a', 'b'].map((name) => {
      const router = new Router();
      router.add('GET', '/who', (ex) => ex.json(200, { name }));
      return HttpServer.listen(http, router, pino({ level: 'silent' }), { name: 'node' }, { sharedPort: true });
    }));
    try {
      const answered = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/who`, { headers: { connection: 'close' } });
        answered.add(((await res.json()) as { name: string }).name);
      }
      assert.deepEqual([...answered].sort(), ['a', 'b']);
      await assert.rejects(HttpServer.listen(http, new Router(), pino({ level: 'silent' }), { name: 'node' }), /cannot listen on 127\.0\.0\.1:/);
    } finally {
      await Promise.all(servers.map((server) => server.drain(1_000)));
    }
  });
});

describe('http server over node: what Node would answer itself', { skip: uwsHalfOnly }, () => {
  async function listen(timeouts: { header_timeout: number; body_timeout: number }) {
    const router = new Router();
    router.add('POST', '/echo', async (ex) => ex.json(200, { size: (await ex.readBody()).length }), { bodyLimit: 1024 });
    router.add('POST', '/refuse', (ex) => ex.json(401, { refused: true }));
    router.add('PUT', '/upload', async (ex) => {
      let size = 0;
      for await (const chunk of ex.bodyChunks()) size += chunk.length;
      ex.json(200, { size });
    }, { streamBody: true });
    const port = await freePort();
    const server = await HttpServer.listen({ host: '127.0.0.1', port, max_body: 1024, ...timeouts }, router, pino({ level: 'silent' }), { name: 'node' });
    return { server, port };
  }

  function jsonError(text: string): { status: number; error: string } {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    assert.match(text, /content-type: application\/json/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, string>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'status']);
    return { status, error: body['error']! };
  }

  it('answers malformed requests, oversized headers, unknown expectations and CONNECT with JSON errors', async () => {
    const { server, port } = await listen({ header_timeout: 10_000, body_timeout: 30_000 });
    try {
      assert.deepEqual(jsonError((await trickle(port, 'GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\u0001b\r\n\r\n', '')).text), { status: 400, error: 'malformed_request' });
      assert.deepEqual(jsonError((await trickle(port, `GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, '')).text), { status: 431, error: 'headers_too_large' });
      const expect = await trickle(port, 'POST /echo HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', '');
      assert.deepEqual(jsonError(expect.text), { status: 417, error: 'expectation_failed' });
      assert.deepEqual(jsonError((await trickle(port, 'CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n', '')).text), { status: 405, error: 'method_not_allowed' });
      // Garbage after a complete request (a client that broke a header value with CR LF): the request's answer, then a 400.
      const pipelined = await trickle(port, 'DELETE /echo HTTP/1.1\r\nHost: a\r\nX-Broken: a\r\n\r\nb\r\nContent-Length: 0\r\n\r\n', '');
      const secondAnswer = pipelined.text.indexOf('HTTP/1.1', 1);
      assert.deepEqual(jsonError(pipelined.text.slice(0, secondAnswer)), { status: 405, error: 'method_not_allowed' });
      assert.deepEqual(jsonError(pipelined.text.slice(secondAnswer)), { status: 400, error: 'malformed_request' });
      // A body of unknown length: 400 before anything else is answered (here a 405), then the connection closes.
      for (const codings of ['gzip', 'identity', 'chunked, gzip']) {
        const unframed = await trickle(port, `DELETE /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ${codings}\r\n\r\n{"a":1}GET /x HTTP/1.1\r\nHost: a\r\n\r\n`, '');
        assert.deepEqual(jsonError(unframed.text), { status: 400, error: 'malformed_request' }, codings);
      }
    } finally {
      server.closeNow();
    }
  });

  it('answers a request over a limit or of unknown length before it has all arrived, and the answer reaches the client (no reset)', async () => {
    const { server, port } = await listen({ header_timeout: 10_000, body_timeout: 30_000 });
    // Closed with the rest of the request unread, the connection would be reset, the client's write would fail and
    // the answer would be lost. The bodies are larger than loopback's socket buffers, so the reset comes while the
    // client is still writing.
    try {
      const bodyTooLarge = await statusLinesOfOversizedPosts(port, { path: '/echo', headerBytes: 10, bodyBytes: 16 << 20 }, 10);
      assert.deepEqual(bodyTooLarge.filter((line) => line !== 'HTTP/1.1 413 Payload Too Large'), []);
      const headersTooLarge = await statusLinesOfOversizedPosts(port, { path: '/echo', headerBytes: 100_000, bodyBytes: 16 << 20 }, 10);
      assert.deepEqual(headersTooLarge.filter((line) => line !== 'HTTP/1.1 431 Request Header Fields Too Large'), []);
      const unframed = await statusLinesOfOversizedPosts(port, { path: '/echo', headerBytes: 10, bodyBytes: 16 << 20, transferEncoding: 'gzip' }, 10);
      assert.deepEqual(unframed.filter((line) => line !== 'HTTP/1.1 400 Bad Request'), []);
    } finally {
      server.closeNow();
    }
  });

  it('cuts off a client that trickles its headers at http.header_timeout, and one that trickles its body at http.body_timeout (answered or not)', async () => {
    const { server, port } = await listen({ header_timeout: 1_000, body_timeout: 1_500 });
    try {
      const headers = await trickle(port, 'GET /x HTTP/1.1\r\n', 'X-Slow: a'.repeat(100));
      assert.deepEqual(jsonError(headers.text), { status: 408, error: 'header_timeout' });
      assert.ok(headers.closedAfterMs >= 900 && headers.closedAfterMs < 3_000, `closed after ${headers.closedAfterMs} ms`);
      const body = await trickle(port, 'POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n', 'x'.repeat(500));
      assert.deepEqual(jsonError(body.text), { status: 408, error: 'body_timeout' });
      assert.ok(body.closedAfterMs >= 1_400 && body.closedAfterMs < 3_000, `closed after ${body.closedAfterMs} ms`);
      // Answered before the body was read: Node would read the rest of it for the next request, however slowly it comes.
      const answered = await trickle(port, 'POST /refuse HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n', 'x'.repeat(500));
      assert.match(answered.text, /^HTTP\/1\.1 401/);
      assert.ok(answered.closedAfterMs >= 1_400 && answered.closedAfterMs < 3_000, `closed after ${answered.closedAfterMs} ms`);
    } finally {
      server.closeNow();
    }
  });

  it('lets a streamed upload take longer than http.body_timeout while no pause reaches it', async () => {
    const { server, port } = await listen({ header_timeout: 1_000, body_timeout: 1_500 });
    try {
      // 30 bytes, one every 100 ms: 3 s in all, twice the timeout.
      const upload = await trickle(port, 'PUT /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 30\r\nConnection: close\r\n\r\n', 'x'.repeat(30));
      assert.match(upload.text, /^HTTP\/1\.1 200/);
      assert.match(upload.text, /\{"size":30\}$/);
      assert.ok(upload.closedAfterMs >= 2_900, `closed after ${upload.closedAfterMs} ms`);
    } finally {
      server.closeNow();
    }
  });
});
