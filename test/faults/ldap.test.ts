// Fault: the directory (the DC's LDAPS) unreachable. The service reaches LDAPS through a TCP relay
// (test/support/tcp-proxy.ts) that the test takes down: new connections are refused and open ones cut,
// while the DC itself keeps running, so SMB (whose logons Samba checks itself) is unaffected. Stopping only Samba's
// LDAP task is not possible from outside (its `ldap` pre-fork master is one of the DC's tasks; killing a task
// master stops the DC), and the relay makes the outage exact.
// New logins fail cleanly (503 directory_unavailable, at once), logins made before keep working until their
// timeouts (the wiki's login and group caches: ldap.cache_ttl; admin sessions: admin.session_ttl), WebDAV works.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';
import { AdminApi, assertError, type ApiResponse } from '../integration/webhooks/api.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { assertNothingCrashed } from '../support/health.js';
import { ScratchAccounts } from '../integration/wiki/scratch-accounts.js';
import { passAfter } from '../integration/wiki/wiki-service.js';
import { describeOutcomes, ServiceCalls, type Outcome } from './support/load.js';

/** ldap.cache_ttl and admin.session_ttl of the service under test: short, so the test sees them run out. */
const TTL_MS = 6_000;
/** Failing at once: far below ldap.timeout (5 s). */
const FAST_MS = 2_000;
const SEEDED_PAGE = '.wiki/regeln.md';

function assertDirectoryUnavailable(outcome: Outcome): void {
  assert.equal(outcome.status, 503, describeOutcomes([outcome]));
  assert.deepEqual(Object.keys(outcome.json as object).sort(), ['error', 'message', 'status']);
  assert.equal((outcome.json as { error: string }).error, 'directory_unavailable');
  assert.ok(outcome.ms < FAST_MS, describeOutcomes([outcome]));
}

function hitsOf(outcome: Outcome): unknown {
  assert.equal(outcome.status, 200, describeOutcomes([outcome]));
  assert.ok((outcome.json as { total: number }).total > 0, describeOutcomes([outcome]));
  return outcome.json;
}

describe('LDAPS unreachable', () => {
  let env: TestbedEnv;
  let ldap: TcpProxy;
  let service: RunningService;
  before(async () => {
    env = await readTestbedEnv();
    const relay = await TcpProxy.inFrontOf(env.ldap.url);
    ldap = relay.relay;
    const started = Date.now();
    service = await startService({
      ldap: { url: relay.url, cache_ttl: `${TTL_MS}ms` },
      admin: { session_ttl: `${TTL_MS}ms` },
      reconciler: { interval: '1h' },
    });
    // Its index is this file's own: the searches below need the first pass to have filled it.
    await passAfter(service, started);
  });
  after(async () => {
    await service?.stop();
    await ldap?.down();
  });

  it('refuses new logins with 503, keeps earlier ones until their timeouts, and recovers', async () => {
    const anna = ServiceCalls.as(service.url, env, 'anna');
    const ben = ServiceCalls.as(service.url, env, 'ben');
    const admin = AdminApi.asAdmin(service.url, env);
    const adminOk = (res: ApiResponse<unknown>) => assert.equal(res.status, 200, JSON.stringify(res.body));
    const hits = hitsOf(await anna.search());
    adminOk(await admin.list());
    const loggedIn = Date.now();

    await ldap.down();
    // Earlier logins: the same answers as before.
    assert.deepEqual(hitsOf(await anna.search()), hits);
    adminOk(await admin.list());
    // New logins, and a changed password of a known user, cannot be checked.
    assertDirectoryUnavailable(await ben.search());
    assertDirectoryUnavailable(await new ServiceCalls(service.url, { user: 'anna', password: 'not-her-password' }).search());
    assertError(await new AdminApi(service.url, `Basic ${Buffer.from('fpadmin:wrong').toString('base64')}`).list(), 503, 'directory_unavailable');
    // WebDAV logs on at the file server, which checks the password itself.
    const read = await ben.get(SEEDED_PAGE);
    assert.equal(read.status, 200, describeOutcomes([read]));

    // The earlier logins run out.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, loggedIn + TTL_MS + 500 - Date.now())));
    assertDirectoryUnavailable(await anna.search());
    assertError(await admin.list(), 503, 'directory_unavailable');
    await assertNothingCrashed(service);

    await ldap.up();
    hitsOf(await ben.search());
    assert.deepEqual(hitsOf(await anna.search()), hits);
    adminOk(await admin.list());
  });

  it('maps no login name while it is down: an explicit UPN counts against its user part, WebDAV works, nothing 5xx but the bind', async () => {
    const scratch = new ScratchAccounts(env);
    const id = Date.now().toString(36);
    const upn = `other-${id}@schule.example`;
    try {
      const account = await scratch.createUser(`fupn${id}`, env.users['ben']!.groups, { userPrincipalName: upn });
      const calls = new ServiceCalls(service.url, { user: upn, password: account.password }, env.users['ben']!.groups);
      await ldap.down();
      try {
        // The file server checks the password itself. The UPN's account cannot be looked up (or lookups rest after
        // an earlier failure): its budget is its user part until the directory is back, and the login goes on at once.
        const read = await calls.get(SEEDED_PAGE);
        assert.equal(read.status, 200, describeOutcomes([read]));
        assert.ok(read.ms < FAST_MS, describeOutcomes([read]));
        assertDirectoryUnavailable(await calls.search());
        await assertNothingCrashed(service);
      } finally {
        await ldap.up();
      }
    } finally {
      await scratch.removeAll();
    }
  });
});
