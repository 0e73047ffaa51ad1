// Unseen group names in X-Service-Groups (issue 27, item 5) through the running service and the testbed DC: 1,000
// wiki calls of a real user, each naming groups nobody has seen, open no more LDAPS connections to the DC than the
// ldap-resolver's pool holds (DEFAULT_SERVICE_CONNECTIONS); main at b8fc48f opened one (TLS + bind) per call.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_SERVICE_CONNECTIONS } from '../../../src/ldap/directory.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { parsePrometheusText, sampleValue } from '../../unit/metrics/prometheus-text.js';
import { sampleDcConnections } from './dc-connections.js';

const REQUESTS = 1_000;
const CONCURRENCY = 8;

describe('unseen group names', () => {
  let env: TestbedEnv;
  let service: RunningService;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService();
  });
  after(() => service.stop());

  const opened = async () => sampleValue(parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text()), 'fileproxy_ldap_service_connections_opened_total');

  it(`${REQUESTS} calls with random group names open at most ${DEFAULT_SERVICE_CONNECTIONS} DC connections`, async () => {
    const authorization = `Basic ${Buffer.from(`anna:${env.users['anna']!.password}`).toString('base64')}`;
    const call = (groups: string) => fetch(`${service.url}/wiki/roots`, { headers: { authorization, 'x-service-groups': groups } });
    assert.equal((await call('Lehrer')).status, 200, 'the login is verified (and cached) first');
    const openedBefore = await opened();
    const sampler = sampleDcConnections(service.process.pid!);
    const statuses: Record<number, number> = {};
    let next = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const names = Array.from({ length: 3 }, () => `flood-${randomBytes(6).toString('hex')}`);
        const res = await call([...names, 'Lehrer'].join(','));
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }));
    const most = await sampler.stop();
    const openedDuring = (await opened()) - openedBefore;
    console.log(`group-name flood: ${REQUESTS} calls in ${Date.now() - started} ms, ${JSON.stringify(statuses)}; `
      + `DC connections opened by the resolver's pool: ${openedDuring}; at most ${most} open at once (ss)`);
    assert.deepEqual(statuses, { 200: REQUESTS });
    assert.ok(openedDuring <= DEFAULT_SERVICE_CONNECTIONS, `${openedDuring} connections opened`);
    assert.ok(most <= DEFAULT_SERVICE_CONNECTIONS, `${most} DC connections open at once`);
  });
});
