// The login throttle (issue 14, hole 5) on a service against the testbed: repeated failed logins get 429 with
// Retry-After before the directory or the SMB server is asked again, per account and per client address; other
// users and credentials already verified are unaffected; a failed WebDAV login leaves no pooled SMB session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { ScratchAccounts } from '../wiki/scratch-accounts.js';
import { parsePrometheusText, sampleValue } from '../../unit/metrics/prometheus-text.js';

const MAX_FAILURES = 3;
const MAX_ADDRESS_FAILURES = 25;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('login throttle', () => {
  let env: TestbedEnv;
  let service: RunningService;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({ auth: { max_failures: MAX_FAILURES, max_address_failures: MAX_ADDRESS_FAILURES, lockout: '1m' } });
  });
  after(() => service.stop());

  const password = (user: string) => env.users[user]!.password;
  const roots = (user: string, pw: string) => fetch(`${service.url}/wiki/roots`, { headers: { authorization: basic(user, pw), 'x-service-groups': 'Lehrer' } });
  const dav = (user: string, pw: string) => fetch(`${service.url}/dav/schule/Aushang.txt`, { headers: { authorization: basic(user, pw) } });
  const adminList = (user: string, pw: string) => fetch(`${service.url}/edu-api/admin/webhook-clients`, { headers: { authorization: basic(user, pw) } });
  /** A metric's value; 0 while a counter has no sample yet. */
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const samples = parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text());
    return samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ? sampleValue(samples, name, labels) : 0;
  };

  async function assertThrottled(res: Response, what: string): Promise<void> {
    assert.equal(res.status, 429, what);
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, `${what}: Retry-After`);
    const body = (await res.json()) as { status: string; error: string };
    assert.equal(body.status, 'error');
    assert.equal(body.error, 'too_many_failed_logins', what);
  }

  it('wiki: locks an account after max_failures without asking the directory; others and verified credentials pass', async () => {
    // dora logs in before the attack: her verified credentials are not slowed by it.
    assert.equal((await roots('dora', password('dora'))).status, 200);
    const rejectedBefore = await metric('fileproxy_wiki_logins_total', { result: 'rejected' });
    for (let i = 0; i < MAX_FAILURES; i++) {
      assert.equal((await roots('dora', `wrong-${i}`)).status, 401, `wrong password ${i + 1}`);
      assert.equal((await roots('ben', `wrong-${i}`)).status, 401, `wrong password ${i + 1}`);
    }
    for (let i = 0; i < 5; i++) await assertThrottled(await roots('ben', `wrong-more-${i}`), 'a further guess');
    assert.equal(await metric('fileproxy_wiki_logins_total', { result: 'rejected' }), rejectedBefore + 2 * MAX_FAILURES, 'the directory saw only the first failures');
    assert.ok(await metric('fileproxy_logins_throttled_total') >= 5);
    // A new login of a locked account waits for the lockout, right password or not (the directory is not asked).
    await assertThrottled(await roots('ben', password('ben')), 'a new login of the locked account');
    await assertThrottled(await roots('ben', password('ben')), 'the same over WebDAV');
    assert.equal((await roots('dora', password('dora'))).status, 200, 'verified credentials of an attacked account');
    assert.equal((await roots('anna', password('anna'))).status, 200, 'another user');
    assert.equal((await dav('anna', password('anna'))).status, 200, 'another user over WebDAV');
  });

  it('WebDAV: a failed login leaves no pooled SMB session; repeated failures get 429', async () => {
    const pooled = () => metric('fileproxy_smb_sessions', { pool: 'webdav' });
    const before = await pooled();
    for (let i = 0; i < MAX_FAILURES; i++) {
      const res = await dav('carla', `wrong-${i}`);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: string }).error, 'logon_failure');
    }
    assert.equal(await pooled(), before, 'no SMB session kept for credentials the file server refused');
    await assertThrottled(await dav('carla', 'wrong-again'), 'a further WebDAV guess');
    assert.equal(await pooled(), before, 'nor for a refused attempt');
  });

  it('admin API: locks the account after max_failures, answering 429 with Retry-After', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) assert.equal((await adminList(env.admin.user, `wrong-${i}`)).status, 401);
    await assertThrottled(await adminList(env.admin.user, 'wrong-again'), 'a further admin guess');
    await assertThrottled(await fetch(`${service.url}/edu-api/users/anna/events`, { headers: { authorization: basic(env.admin.user, 'x') } }), 'user events');
  });

  it('one failure budget per account, however the name is spelt, over WebDAV and the wiki', async () => {
    // main at b8fc48f logged EDU\\eve\\s1 on over WebDAV as eve and counted the failure under "s1": seven wrong
    // passwords as EDU\\eve\\s1 … s7 got 401, never 429. Such a name is now refused before anything is asked.
    const scratch = new ScratchAccounts(env);
    try {
      const eve = await scratch.createUser(`spell${Date.now().toString(36)}`, ['Lehrer']);
      const refused = await dav(`${env.smb.domain}\\${eve.name}\\s1`, eve.password);
      assert.equal(refused.status, 401, 'a name the logon would read as another account than the budget');
      const spellings = [`${env.smb.domain}\\${eve.name}`, `${eve.name}@${env.smb.realm.toLowerCase()}`, eve.name.toUpperCase()];
      for (const [i, spelling] of spellings.entries()) {
        const res = i % 2 === 0 ? await dav(spelling, `wrong-${i}`) : await roots(spelling, `wrong-${i}`);
        assert.equal(res.status, 401, spelling);
      }
      await assertThrottled(await dav(`${eve.name}@${env.smb.realm.toUpperCase()}`, 'wrong-again'), 'another spelling over WebDAV');
      await assertThrottled(await roots(`${env.smb.realm}\\${eve.name}`, 'wrong-again'), 'another spelling in the wiki');
      await assertThrottled(await dav(`${env.smb.domain.toLowerCase()}\\${eve.name}`, eve.password), 'a new login of the locked account, rightly spelt');
    } finally {
      await scratch.removeAll();
    }
  });

  it('an explicit UPN with another user part spends the account\'s one budget, over WebDAV and the wiki', async () => {
    // main at 88de901 counted a.mueller@schule.de under "a.mueller", not under its account "anna": the account had
    // max_failures twice, and the right password still worked after max_failures wrong ones in all.
    const scratch = new ScratchAccounts(env);
    try {
      const id = Date.now().toString(36);
      const upn = `other-${id}@schule.example`;
      const account = await scratch.createUser(`upnb${id}`, ['Lehrer'], { userPrincipalName: upn });
      // Such a UPN is a working spelling on both routes (else the 429s below would prove nothing): a twin shows it.
      const twinUpn = `twin-${id}@schule.example`;
      const twin = await scratch.createUser(`upnt${id}`, ['Lehrer'], { userPrincipalName: twinUpn });
      assert.equal((await roots(twinUpn, twin.password)).status, 200, 'the wiki binds with the explicit UPN');
      assert.equal((await dav(twinUpn, twin.password)).status, 200, 'WebDAV logs on with it');
      const realmUpn = `${account.name}@${env.smb.realm.toLowerCase()}`;
      const wrong: [string, (user: string, pw: string) => Promise<Response>][] = [
        [`${env.smb.domain}\\${account.name}`, dav], [upn, roots], [realmUpn, dav],
      ];
      assert.equal(wrong.length, MAX_FAILURES);
      for (const [i, [spelling, route]] of wrong.entries()) assert.equal((await route(spelling, `wrong-${i}`)).status, 401, spelling);
      for (const [spelling, route] of [[upn, dav], [upn.toUpperCase(), roots], [realmUpn, roots], [account.name, dav]] as const) {
        await assertThrottled(await route(spelling, 'wrong-again'), `a further guess as ${spelling}`);
        await assertThrottled(await route(spelling, account.password), `a new login as ${spelling}, right password`);
      }
    } finally {
      await scratch.removeAll();
    }
  });

  it('a bare name in the wiki counts against the account its bind reaches, which another account\'s explicit UPN can be', async () => {
    // bob has only the implicit UPN bob@realm; mal's explicit UPN is that same name, which wins the bind of a bare
    // "bob" (Samba refuses to set such a UPN over LDAP, Windows does not). Before, such guesses at mal's password
    // counted against "bob", a second budget of mal's.
    const scratch = new ScratchAccounts(env);
    try {
      const id = Date.now().toString(36);
      const bob = await scratch.createUser(`bareb${id}`, ['Lehrer'], { userPrincipalName: null });
      const mal = await scratch.createUser(`barem${id}`, ['Lehrer']);
      await scratch.forceUserPrincipalName(mal.name, `${bob.name}@${env.smb.realm.toLowerCase()}`);
      const wrong: [string, (user: string, pw: string) => Promise<Response>][] = [
        [bob.name, roots], [`${env.smb.domain}\\${mal.name}`, dav], [bob.name.toUpperCase(), roots],
      ];
      assert.equal(wrong.length, MAX_FAILURES);
      for (const [i, [spelling, route]] of wrong.entries()) assert.equal((await route(spelling, `wrong-${i}`)).status, 401, spelling);
      await assertThrottled(await roots(bob.name, mal.password), 'a new wiki login with the bare name, mal\'s password');
      await assertThrottled(await dav(mal.name, mal.password), 'mal over WebDAV');
      assert.equal((await dav(bob.name, bob.password)).status, 200, 'bob, whom a bare name names over SMB, is not locked');
    } finally {
      await scratch.removeAll();
    }
  });

  it('WebDAV: wrong passwords in user@realm form are refused logons (401, counted), not 404', async () => {
    // Samba answers that session setup NT_STATUS_NOT_FOUND: main at b8fc48f answered 404 and took the attempt back
    // from the throttle, so such guesses were never counted.
    const scratch = new ScratchAccounts(env);
    try {
      const upn = `${(await scratch.createUser(`upn${Date.now().toString(36)}`)).name}@${env.smb.realm.toLowerCase()}`;
      for (let i = 0; i < MAX_FAILURES; i++) {
        const res = await dav(upn, `wrong-${i}`);
        assert.equal(res.status, 401, `wrong password ${i + 1}`);
        assert.equal(((await res.json()) as { error: string }).error, 'logon_failure');
      }
      await assertThrottled(await dav(upn, 'wrong-again'), 'a further guess in UPN form');
    } finally {
      await scratch.removeAll();
    }
  });

  it('locks a client address that sprays many accounts; verified credentials from it still pass', async () => {
    // The earlier tests failed 2 * 3 + 3 + 3 + 3 + 3 logins from this address; spray until the address limit.
    let sprayed = 0;
    for (; sprayed < 100; sprayed++) {
      const res = await roots(`web-spray-${sprayed}`, 'Winter2026!');
      if (res.status === 429) break;
      assert.equal(res.status, 401);
    }
    assert.ok(sprayed < 100, 'the address is locked');
    const res = await roots(`web-spray-${sprayed + 1}`, 'Winter2026!');
    await assertThrottled(res, 'another sprayed account');
    await assertThrottled(await dav('ben', 'Winter2026!'), 'a new login over WebDAV from that address');
    assert.equal((await roots('anna', password('anna'))).status, 200, 'verified credentials from that address');
  });

  it('a spray of fresh principal names from a locked address costs the DC nothing', async () => {
    // Each name would be mapped to its account before it is counted; a locked address is refused before that.
    const lookups = () => metric('fileproxy_login_account_lookups_total', { result: 'answered' });
    const opened = () => metric('fileproxy_ldap_service_connections_opened_total');
    const [lookupsBefore, openedBefore] = [await lookups(), await opened()];
    const names = Array.from({ length: 20 }, (_, i) => `spray-${Date.now().toString(36)}-${i}@elsewhere.example`);
    const answers = await Promise.all([...names, ...names].map((name) => roots(name, 'Winter2026!')));
    assert.deepEqual([...new Set(answers.map((res) => res.status))], [429]);
    assert.equal(await lookups() - lookupsBefore, 0, 'no search');
    assert.equal(await opened() - openedBefore, 0, 'no connection');
  });
});
