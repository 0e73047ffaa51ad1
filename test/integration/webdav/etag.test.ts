// ETags and conditional requests against the testbed: the round trip of a
// wiki editor (GET, PUT with If-Match), conflicts, 304, byte ranges, large
// files in both directions, and two concurrent PUTs with the same If-Match
// of which exactly one wins, with one and with two http-front threads.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { HealthReport } from '../../../src/runtime/health.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { DavClient, account } from './dav-client.js';

async function raceSameIfMatch(dav: DavClient, path: string, writers: number, headers: Record<string, string> = {}): Promise<{ winners: string[]; statuses: number[] }> {
  const base = await dav.put(path, 'base version');
  assert.ok(base.ok);
  const etag = base.headers.get('etag')!;
  const bodies = Array.from({ length: writers }, (_, i) => `version of writer ${i}`);
  const statuses = await Promise.all(bodies.map(async (body) => (await dav.put(path, body, { ...headers, 'if-match': etag })).status));
  return { winners: bodies.filter((_, i) => statuses[i]! < 300), statuses };
}

describe('WebDAV ETags and conditional requests', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let dav: DavClient;
  const dir = `_davtest-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService();
    dav = new DavClient(service, account(env, 'anna'));
    assert.equal(await dav.mkcol(dir), 201);
  });
  after(async () => {
    await dav.remove(dir);
    await service.stop();
  });

  it('round trip: GET gives the ETag, PUT with it succeeds, PUT with the old one gets 412 and changes nothing', async () => {
    const page = `${dir}/seite.md`;
    const created = await dav.put(page, '# Version 1\n');
    assert.equal(created.status, 201);
    const first = await dav.text(page);
    assert.equal(first.body, '# Version 1\n');
    assert.equal(first.etag, created.headers.get('etag'));
    assert.match(first.etag!, /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);

    const saved = await dav.put(page, '# Version 2\n', { 'if-match': first.etag! });
    assert.equal(saved.status, 204);
    const second = await dav.text(page);
    assert.equal(second.body, '# Version 2\n');
    assert.equal(second.etag, saved.headers.get('etag'));
    assert.notEqual(second.etag, first.etag);

    const stale = await dav.put(page, '# lost update\n', { 'if-match': first.etag! });
    assert.equal(stale.status, 412);
    assert.equal(((await stale.json()) as { error: string }).error, 'precondition_failed');
    assert.deepEqual(await dav.text(page), second);

    assert.equal((await dav.put(page, 'x', { 'if-none-match': '*' })).status, 412);
    assert.equal((await dav.put(`${dir}/neu.md`, 'x', { 'if-none-match': '*' })).status, 201);
    assert.equal((await dav.put(`${dir}/${'n'.repeat(252)}.md`, 'longest name')).status, 201);
    assert.equal((await dav.put(`${dir}/fehlt.md`, 'x', { 'if-match': second.etag! })).status, 412);
    // A failed conditional PUT gives its per-resource lease back: the next one is not kept waiting.
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      assert.equal((await dav.put(`${dir}/kein-ordner/seite.md`, 'x', { 'if-none-match': '*' })).status, 409);
      assert.ok(Date.now() - started < 5_000);
    }
  });

  it('GET and HEAD: 304 for a matching If-None-Match, HEAD without a body, one byte range', async () => {
    const page = `${dir}/range.txt`;
    const etag = (await dav.put(page, '0123456789')).headers.get('etag')!;
    const notModified = await dav.request('GET', page, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('etag'), etag);
    const head = await dav.request('HEAD', page);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), '10');
    assert.equal(head.headers.get('etag'), etag);
    assert.equal(await head.text(), '');
    const part = await dav.request('GET', page, { headers: { range: 'bytes=2-4' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 2-4/10');
    assert.equal(await part.text(), '234');
    const suffix = await dav.request('GET', page, { headers: { range: 'bytes=-3', 'if-range': etag } });
    assert.equal(await suffix.text(), '789');
    const outdated = await dav.request('GET', page, { headers: { range: 'bytes=0-0', 'if-range': '"old"' } });
    assert.equal(outdated.status, 200);
    assert.equal((await dav.request('GET', page, { headers: { range: 'bytes=10-' } })).status, 416);
  });

  it('streams large files both ways and reads ranges past the first block', async () => {
    const big = randomBytes(5 * 1024 * 1024 + 123);
    const put = await dav.put(`${dir}/big.bin`, big);
    assert.equal(put.status, 201);
    const got = await dav.request('GET', `${dir}/big.bin`);
    assert.equal(got.headers.get('etag'), put.headers.get('etag'));
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(big));
    const tail = await dav.request('GET', `${dir}/big.bin`, { headers: { range: `bytes=${big.length - 100000}-` } });
    assert.ok(Buffer.from(await tail.arrayBuffer()).equals(big.subarray(big.length - 100000)));
  });

  it('of concurrent PUTs with the same If-Match exactly one succeeds; the rest get 412', async () => {
    for (let round = 0; round < 3; round++) {
      const path = `${dir}/race-${round}.md`;
      const { winners, statuses } = await raceSameIfMatch(dav, path, 8);
      assert.equal(winners.length, 1, `statuses ${statuses.join(', ')}`);
      assert.ok(statuses.every((s) => s === 204 || s === 412), statuses.join(', '));
      assert.equal((await dav.text(path)).body, winners[0]);
    }
  });
});

describe('WebDAV If-Match races across two http-front threads', () => {
  let service: RunningService;
  let dav: DavClient;
  const dir = `_davtest-${randomBytes(4).toString('hex')}`;

  before(async () => {
    service = await startService({ workers: { http_front: 2 } });
    dav = new DavClient(service, account(await readTestbedEnv(), 'anna'));
    assert.equal((await dav.put(`${dir}-probe.md`, 'probe')).status, 201);
    assert.equal(await dav.remove(`${dir}-probe.md`), 204);
  });
  after(async () => {
    await service.stop();
  });

  async function servedPerFront(): Promise<number[]> {
    const report = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
    return ['http-front#1', 'http-front#2'].map((name) => Number(report.actors[name]?.details?.['served']));
  }

  it('exactly one of the concurrent PUTs wins, whichever thread each lands on', async () => {
    const start = await servedPerFront();
    for (let round = 0; round < 10; round++) {
      const path = `${dir}-race-${round}.md`;
      // Each PUT on a connection of its own: kept-alive connections stay on the thread that accepted them, and
      // only new ones are spread over both threads by the kernel.
      const { winners, statuses } = await raceSameIfMatch(dav, path, 8, { connection: 'close' });
      assert.equal(winners.length, 1, `statuses ${statuses.join(', ')}`);
      assert.equal((await dav.text(path)).body, winners[0]);
      assert.equal(await dav.remove(path), 204);
      const now = await servedPerFront();
      if (round >= 2 && now.every((served, i) => served - start[i]! >= 5)) return;
    }
    assert.fail(`the PUTs did not reach both threads: ${JSON.stringify(await servedPerFront())}`);
  });
});
