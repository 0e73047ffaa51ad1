// The webhook intake with two http-front threads: the dedupe ring is atomic
// across both, and both reject a deleted client's key as soon as the delete
// call returns (the store pushes the client list before answering).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { HealthReport } from '../../../src/runtime/health.js';
import { readTestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { AdminApi, nowSeconds, simultaneousPosts, statusCounts, type ClientEntry } from './api.js';

const FRONTS = ['http-front#1', 'http-front#2'];

/** Requests served so far by each of the named front threads, from /healthz. */
async function servedBy(service: RunningService, fronts: readonly string[]): Promise<number[]> {
  const report = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
  return fronts.map((name) => Number(report.actors[name]?.details?.['served']));
}

describe('webhook intake with workers.http_front = 2', () => {
  let service: RunningService;
  let admin: AdminApi;

  before(async () => {
    service = await startService({ workers: { http_front: 2 } });
    admin = AdminApi.asAdmin(service.url, await readTestbedEnv());
  });
  after(async () => { await service.stop(); });

  const servedPerFront = () => servedBy(service, FRONTS);

  /** One post on a connection of its own, so that the kernel spreads the posts over both threads. */
  function postOnNewConnection(client: ClientEntry): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(`${service.url}/edu-api/webhook`, {
        method: 'POST',
        agent: false,
        headers: {
          'x-webhook-key': client.api_key, 'x-webhook-timestamp': String(nowSeconds()), 'x-webhook-event-id': randomUUID(),
          'user-agent': client.user_agent, 'content-type': 'application/json', connection: 'close',
        },
      }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
      req.on('error', reject);
      req.end('{}');
    });
  }

  /** Posts until both threads answered at least 5 times; returns every status. */
  async function postFromBothThreads(client: ClientEntry): Promise<number[]> {
    const start = await servedPerFront();
    const statuses: number[] = [];
    for (let round = 0; round < 20; round++) {
      statuses.push(...(await Promise.all(Array.from({ length: 10 }, () => postOnNewConnection(client)))));
      const now = await servedPerFront();
      if (now.every((served, i) => served - start[i]! >= 6)) return statuses; // 5 posts + the /healthz call
    }
    return assert.fail(`the posts did not reach both http-front threads: ${JSON.stringify(await servedPerFront())}`);
  }

  it('both fronts hold the client list', async () => {
    const report = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
    for (const name of FRONTS) assert.equal(report.actors[name]?.state, 'running', name);
    const client = await admin.register('platform-api');
    const statuses = await postFromBothThreads(client);
    assert.deepEqual([...new Set(statuses)], [200]);
  });

  it('200 concurrent posts of one event over both threads: exactly one 200 and 199 × 409', async () => {
    const client = await admin.register('service-eventhandler');
    const post = { key: client.api_key, userAgent: 'service-eventhandler', eventId: randomUUID(), body: '{"username":"ben"}' };
    assert.deepEqual(statusCounts(await simultaneousPosts(service.url, 200, post)), { 200: 1, 409: 199 });
  });

  it('a deleted client gets 401 at once on every thread', async () => {
    const client = await admin.register('platform-api');
    assert.deepEqual([...new Set(await postFromBothThreads(client))], [200]);
    const deleted = await admin.deleteMany({ ids: [client.id] });
    assert.deepEqual(deleted.body, { deleted: [client.id], not_found: [] });
    assert.deepEqual([...new Set(await postFromBothThreads(client))], [401]);
  });
});

describe('webhook intake with workers.http_front = 4', () => {
  let service: RunningService;
  let admin: AdminApi;
  const fronts = [1, 2, 3, 4].map((n) => `http-front#${n}`);

  before(async () => {
    service = await startService({ workers: { http_front: 4 } });
    admin = AdminApi.asAdmin(service.url, await readTestbedEnv());
  });
  after(async () => { await service.stop(); });

  const served = () => servedBy(service, fronts);

  it('200 concurrent posts of one event over four threads: exactly one 200 and 199 × 409, every thread answering some', async () => {
    const client = await admin.register('service-eventhandler');
    for (let round = 0; round < 3; round++) {
      const before = await served();
      const post = { key: client.api_key, userAgent: 'service-eventhandler', eventId: randomUUID(), body: '{"username":"ben"}' };
      assert.deepEqual(statusCounts(await simultaneousPosts(service.url, 200, post)), { 200: 1, 409: 199 });
      const after = await served();
      assert.ok(after.every((count, i) => count - before[i]! >= 2), `posts per thread: ${after.map((count, i) => count - before[i]!).join(', ')}`);
    }
  });
});
