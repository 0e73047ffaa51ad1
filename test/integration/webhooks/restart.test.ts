// Restarts: a service restart clears the dedupe ring and keeps the clients;
// while the dedupe actor is down the intake answers 503 (never 200); while the
// webhook-store is down the intake keeps working from the replica (for
// webhooks.replica_lease, then 503: nobody vouches for the copy any more) and the
// admin API answers 503; a restarted store serves the clients from its file again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig, readIndexerPassword } from '../../../src/config/index.js';
import type { HealthReport } from '../../../src/runtime/health.js';
import { Supervisor } from '../../../supervisor/supervisor.js';
import { readTestbedEnv } from '../../testbed/env.js';
import { crashActor } from '../../support/fault-drills.js';
import { startService, waitFor, writeServiceConfig, type RunningService } from '../../support/service.js';
import { AdminApi, assertError, postWebhook } from './api.js';

describe('restarts', () => {
  const running: RunningService[] = [];
  after(async () => { for (const s of running) await s.stop(); });

  it('a service restart clears the dedupe ring and keeps the clients', async () => {
    const env = await readTestbedEnv();
    const first = await startService();
    running.push(first);
    const client = await AdminApi.asAdmin(first.url, env).register('platform-api');
    const eventId = randomUUID();
    const post = (url: string) => postWebhook(url, { key: client.api_key, userAgent: 'platform-api', eventId });
    assert.equal((await post(first.url)).status, 200);
    assert.equal((await post(first.url)).status, 409);
    assert.equal(await first.stop(), 0);

    const second = await startService({ storage: { data_dir: dirname(first.configFile) } });
    running.push(second);
    const listed = await AdminApi.asAdmin(second.url, env).list();
    assert.deepEqual(listed.body.clients.map((c) => [c.id, c.user_agent, c.api_key]), [[client.id, 'platform-api', '********']]);
    assert.equal((await post(second.url)).status, 200, 'the id is new to the restarted ring; the key still works');
  });

  describe('actor restarts inside one service', () => {
    async function startSupervisor(webhooks: Record<string, unknown> = {}) {
      // A long backoff keeps a crashed actor down long enough to watch the service without it.
      const { file, port } = await writeServiceConfig({
        supervisor: { backoff_initial: '3s', backoff_max: '3s' },
        webhooks,
        log: { level: 'fatal' }, // the drills' crash reports would only clutter the test output
      });
      const { config } = loadConfig(file);
      const supervisor = new Supervisor(config, { indexerPassword: readIndexerPassword(config) }, pino({ level: 'silent' }));
      await supervisor.start();
      return { supervisor, url: `http://127.0.0.1:${port}` };
    }
    const stateOf = async (url: string, actor: string) =>
      ((await (await fetch(`${url}/healthz`)).json()) as HealthReport).actors[actor]?.state;

    it('dedupe down: 503 JSON, never 200; after its restart the ring is empty', async () => {
      const { supervisor, url } = await startSupervisor();
      try {
        const client = await AdminApi.asAdmin(url, await readTestbedEnv()).register('platform-api');
        const eventId = randomUUID();
        const post = () => postWebhook(url, { key: client.api_key, userAgent: 'platform-api', eventId });
        assert.equal((await post()).status, 200);
        await crashActor('dedupe', 'drill');
        await waitFor(async () => (await stateOf(url, 'dedupe')) === 'restarting', 2_000);
        assertError(await post(), 503, 'service_unavailable', /dedupe/);
        await waitFor(async () => (await stateOf(url, 'dedupe')) === 'running', 10_000);
        assert.equal((await post()).status, 200, 'the restarted ring has forgotten the id');
      } finally {
        await supervisor.stop();
      }
    });

    it('a restarted http-front gets the client list from the store and accepts the keys again', async () => {
      const { supervisor, url } = await startSupervisor();
      try {
        const client = await AdminApi.asAdmin(url, await readTestbedEnv()).register('platform-api');
        await crashActor('http-front', 'drill');
        await waitFor(async () => (await supervisor.health()).actors['http-front']?.restarts === 1, 10_000);
        // Until the store's copy arrives the front answers 503 (never 401); then the key works again.
        const statuses = new Set<number>();
        await waitFor(async () => {
          const { status } = await postWebhook(url, { key: client.api_key, userAgent: 'platform-api' });
          statuses.add(status);
          return status === 200;
        }, 30_000);
        assert.deepEqual([...statuses].filter((s) => s !== 200 && s !== 503), []);
        const report = (await (await fetch(`${url}/healthz`)).json()) as HealthReport;
        assert.equal(report.actors['http-front']?.details?.['webhookClients'], 1);
      } finally {
        await supervisor.stop();
      }
    });

    it('webhook-store down: the intake keeps working, the admin API answers 503; restarted, it has the clients', async () => {
      const { supervisor, url } = await startSupervisor();
      try {
        const admin = AdminApi.asAdmin(url, await readTestbedEnv());
        const platform = await admin.register('platform-api');
        const eventhandler = await admin.register('service-eventhandler');
        await crashActor('webhook-store', 'drill');
        await waitFor(async () => (await stateOf(url, 'webhook-store')) === 'restarting', 2_000);
        assert.equal((await postWebhook(url, { key: platform.api_key, userAgent: 'platform-api' })).status, 200);
        const uncached = await postWebhook(url, { key: eventhandler.api_key, userAgent: 'service-eventhandler', body: '{"username":"ben"}' });
        assertError(uncached, 503, 'service_unavailable', /webhook-store/); // not acknowledged while it cannot be cached
        assert.equal((await admin.list()).status, 503);
        await waitFor(async () => (await stateOf(url, 'webhook-store')) === 'running', 10_000);
        assert.deepEqual((await admin.list()).body.clients.map((c) => c.id).sort(), [platform.id, eventhandler.id].sort());
        assert.equal((await postWebhook(url, { key: eventhandler.api_key, userAgent: 'service-eventhandler', body: '{"username":"ben"}' })).status, 200);
      } finally {
        await supervisor.stop();
      }
    });

    it('webhook-store down longer than webhooks.replica_lease: keys get 503 (fail closed), not 200; back when it returns', async () => {
      const { supervisor, url } = await startSupervisor({ replica_lease: '1s' });
      try {
        const platform = await AdminApi.asAdmin(url, await readTestbedEnv()).register('platform-api');
        const post = () => postWebhook(url, { key: platform.api_key, userAgent: 'platform-api' });
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        assert.equal((await post()).status, 200, 'the lease is renewed while the store runs');
        await crashActor('webhook-store', 'drill');
        await waitFor(async () => (await stateOf(url, 'webhook-store')) === 'restarting', 2_000);
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        assertError(await post(), 503, 'registry_unavailable', /not confirmed/);
        await waitFor(async () => (await stateOf(url, 'webhook-store')) === 'running', 10_000);
        await waitFor(async () => (await post()).status === 200, 5_000);
      } finally {
        await supervisor.stop();
      }
    });
  });
});
