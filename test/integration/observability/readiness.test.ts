// GET /readyz against the testbed: ready with every dependency up, not ready
// (with the reason) when Elasticsearch is configured at a closed port.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ReadinessReport } from '../../../src/metrics/readiness.js';
import { freePort } from '../../support/ports.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv } from '../../testbed/env.js';

async function readiness(service: RunningService): Promise<{ status: number; report: ReadinessReport }> {
  const res = await fetch(`${service.url}/readyz`);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return { status: res.status, report: (await res.json()) as ReadinessReport };
}

describe('GET /readyz', () => {
  const services: RunningService[] = [];
  after(async () => {
    for (const service of services) assert.equal(await service.stop(), 0);
  });

  it('is 200 on the testbed: Elasticsearch, an LDAPS bind and an SMB session as the indexer account, named by neither it nor /healthz', async () => {
    const env = await readTestbedEnv();
    const service = await startService();
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 200, JSON.stringify(report));
    assert.equal(report.status, 'ready');
    const smb = `smb://${env.smb.host}:${env.smb.port}`;
    assert.deepEqual(Object.keys(report.checks).sort(), ['elasticsearch', 'ldap', smb].sort());
    for (const check of Object.values(report.checks)) assert.equal(check.status, 'up', check.detail);
    assert.match(report.checks['elasticsearch']!.detail, /is (green|yellow)$/);
    assert.match(report.checks['ldap']!.detail, /LDAPS bind as the indexer account/);
    assert.match(report.checks[smb]!.detail, /SMB session setup as the indexer account/);
    // Both endpoints answer without authentication: no account name, no folder of the host.
    assert.doesNotMatch(JSON.stringify(report), new RegExp(env.indexer.user, 'i'));
    const health = await (await fetch(`${service.url}/healthz`)).text();
    assert.ok(!health.includes(dirname(service.configFile)), `/healthz shows the data directory: ${health}`);

    const again = await readiness(service);
    assert.equal(again.report.checks['ldap']!.checked_at, report.checks['ldap']!.checked_at, 'a second probe right after reuses the results');
  });

  it('is 503 with the reason when Elasticsearch is at a closed port; the others stay up', async () => {
    const closed = await freePort();
    const service = await startService({ elasticsearch: { url: `http://127.0.0.1:${closed}` } });
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 503);
    assert.equal(report.status, 'not_ready');
    assert.equal(report.checks['elasticsearch']!.status, 'down');
    assert.match(report.checks['elasticsearch']!.detail, new RegExp(`127\\.0\\.0\\.1:${closed} unreachable`));
    assert.equal(report.checks['ldap']!.status, 'up');
  });

  it('does not need Elasticsearch with the wiki off, and only connects to the directory and file servers (no account)', async () => {
    const service = await startService({ elasticsearch: { enabled: false } });
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 200, JSON.stringify(report));
    assert.equal(report.checks['elasticsearch']!.status, 'disabled');
    assert.match(report.checks['ldap']!.detail, /answers over LDAPS \(no bind/);
    const smb = Object.entries(report.checks).find(([name]) => name.startsWith('smb://'))![1];
    assert.match(smb.detail, /answers an SMB negotiate \(no logon/);
  });
});
