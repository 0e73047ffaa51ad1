// GET /readyz against the testbed: ready with every dependency up, not ready when Elasticsearch is configured at a
// closed port, and when the file server is. It answers without authentication, as /healthz does: both give states, never a host, URL, account or
// folder; what each probe checked and why it failed is in the log.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ReadinessReport } from '../../../src/metrics/readiness.js';
import { assertNamesNone, deploymentNames } from '../../support/anonymous-answers.js';
import { refusingPort } from '../../support/ports.js';
import { loggedReadiness } from '../../support/readiness-log.js';
import { startService, waitFor, type RunningService } from '../../support/service.js';
import { readTestbedEnv } from '../../testbed/env.js';

const env = await readTestbedEnv();

async function readiness(service: RunningService): Promise<{ status: number; report: ReadinessReport }> {
  const res = await fetch(`${service.url}/readyz`);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const body = await res.text();
  assertNamesNone('/readyz', { headers: res.headers, body }, deploymentNames(env, [dirname(service.configFile)]));
  return { status: res.status, report: JSON.parse(body) as ReadinessReport };
}

/** /healthz in whatever state the service is: states and counts, never a host, port, URL, account or folder. */
async function assertHealthNamesNone(service: RunningService, extra: readonly string[]): Promise<void> {
  const health = await fetch(`${service.url}/healthz`);
  const names = [...deploymentNames(env, [dirname(service.configFile)]), '127.0.0.1', ...extra];
  assertNamesNone('/healthz', { headers: health.headers, body: await health.text() }, names);
}

describe('GET /readyz', () => {
  const services: RunningService[] = [];
  const refusing: { close(): Promise<void> }[] = [];
  /** A port where nothing answers, held for this file (not merely free: another test could take that). */
  const closedPort = async (): Promise<number> => {
    const held = await refusingPort();
    refusing.push(held);
    return held.port;
  };
  after(async () => {
    for (const service of services) assert.equal(await service.stop(), 0);
    await Promise.all(refusing.map((held) => held.close()));
  });

  it('is 200 on the testbed with a state per dependency; the log says what was checked; neither it nor /healthz names the deployment', async () => {
    const service = await startService();
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 200, JSON.stringify(report));
    assert.equal(report.status, 'ready');
    assert.deepEqual(Object.keys(report.checks).sort(), ['elasticsearch', 'ldap', 'smb']);
    for (const check of Object.values(report.checks)) assert.equal(check.status, 'up');
    assert.deepEqual(report.checks['smb']!.servers, { up: 1, total: 1 });
    const logged = await loggedReadiness(service, ['elasticsearch', 'ldap', 'smb']);
    assert.match(logged['elasticsearch']!, /is (green|yellow)$/);
    assert.match(logged['ldap']!, /LDAPS bind as the indexer account/);
    assert.match(logged['smb']!, /SMB session setup as the indexer account/);

    await assertHealthNamesNone(service, []);

    const again = await readiness(service);
    assert.equal(again.report.checks['ldap']!.checked_at, report.checks['ldap']!.checked_at, 'a second probe right after reuses the results');
  });

  it('is 503 when Elasticsearch is at a closed port, the others up; the port is in the log, not the answer', async () => {
    const closed = await closedPort();
    const service = await startService({ elasticsearch: { url: `http://127.0.0.1:${closed}` } });
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 503);
    assert.equal(report.status, 'not_ready');
    assert.equal(report.checks['elasticsearch']!.status, 'down');
    assert.equal(report.checks['ldap']!.status, 'up');
    assert.doesNotMatch(JSON.stringify(report), new RegExp(String(closed)));
    assert.match((await loggedReadiness(service, ['elasticsearch']))['elasticsearch']!, new RegExp(`127\\.0\\.0\\.1:${closed} unreachable`));
    await assertHealthNamesNone(service, [String(closed)]);
  });

  it('is 503 when the file server is at a closed port; neither /healthz nor a WebDAV answer names the server', async () => {
    const closed = await closedPort();
    const service = await startService({ smb: { port: closed } });
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 503);
    assert.equal(report.checks['smb']!.status, 'down');
    const [user, password] = Object.entries(env.users)[0]!;
    const dav = await fetch(`${service.url}/dav/${env.smb.shares[0]!.name}/`, {
      headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    });
    const body = await dav.text();
    assert.equal(dav.status, 503, body);
    assert.equal((JSON.parse(body) as { error: string }).error, 'backend_unavailable');
    assertNamesNone('a WebDAV 503', { headers: dav.headers, body }, [...deploymentNames(env), '127.0.0.1', String(closed)]);
    await waitFor(async () => service.output().includes(`127.0.0.1:${closed}`), 5_000);
    await assertHealthNamesNone(service, [String(closed)]);
  });

  it('does not need Elasticsearch with the wiki off, and only connects to the directory and file servers (no account)', async () => {
    const service = await startService({ elasticsearch: { enabled: false } });
    services.push(service);
    const { status, report } = await readiness(service);
    assert.equal(status, 200, JSON.stringify(report));
    assert.equal(report.checks['elasticsearch']!.status, 'disabled');
    const logged = await loggedReadiness(service, ['ldap', 'smb']);
    assert.match(logged['ldap']!, /answers over LDAPS \(no bind/);
    assert.match(logged['smb']!, /answers an SMB negotiate \(no logon/);
  });
});
