// Flow 3 of issue 29 through the running service and the testbed DC, with NTLM refused by its file server: a
// trusted caller (wiki.trusted_callers, Basic as itself) names the user in X-Service-User on /dav/, and the service
// reaches SMB as that user by constrained delegation (S4U2Self, S4U2Proxy with svc-proxy's keytab), so the file
// server decides every operation as that user. The wiki's rules of whom a trusted caller may name hold on /dav/ too
// (403 service_user_<rule>, counted); the KDC's refusals and a KDC that does not answer are named; without
// kerberos.delegation the header is refused, never served as the caller.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../support/service.js';
import { ownLogonAuth } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, kerberosConfig, refuseNtlm, sensitiveUser } from '../../testbed/kerberos.js';
import { DavClient, account, type Account } from '../webdav/dav-client.js';
import { ScratchAccounts, type ScratchAccount } from '../wiki/scratch-accounts.js';

interface ErrorBody {
  error: string;
  message: string;
}

/** carla (Schueler) may write here, not in the share root, and may not read Lehrerzimmer. */
const WRITABLE = 'Schülerzeitung';
const NAMES = (body: string) => [...body.matchAll(/<D:href>([^<]*)<\/D:href>/gi)].map((m) => decodeURIComponent(m[1]!)).sort();

async function errorOf(res: Response): Promise<{ status: number } & ErrorBody> {
  return { ...((await res.json()) as ErrorBody), status: res.status };
}

describe('WebDAV for a user a trusted caller names (constrained delegation, flow 3)', () => {
  const prefix = `s4u${randomBytes(3).toString('hex')}`;
  let env: TestbedEnv;
  let dir: string;
  let keytab: string;
  let accounts: ScratchAccounts;
  let portal: ScratchAccount;
  /** The portal's Basic credentials. */
  let caller: Account;
  let service: RunningService | undefined;
  /** A dav client of the portal naming `user`. */
  const via = (user: string, as: Account = caller, on: RunningService = service!) => new DavClient(on, as, 'schule', { 'x-service-user': encodeURIComponent(user) });
  const delegation = () => ({ account: delegationAccount.user, keytab_file: keytab });

  before(async () => {
    env = await readTestbedEnv();
    await ensureDelegationAccounts();
    dir = await mkdtemp(join(tmpdir(), 'dav-delegation-'));
    keytab = join(dir, 'proxy.keytab');
    await exportKeytab(delegationAccount.user, keytab);
    accounts = new ScratchAccounts(env);
    portal = await accounts.createUser(`${prefix}-portal`);
    caller = { user: portal.name, password: portal.password };
    await refuseNtlm(true);
    service = await startService({
      kerberos: { ...kerberosConfig, delegation: delegation() },
      smb: { auth: 'kerberos' },
      wiki: { trusted_callers: [portal.name] },
    });
  });
  after(async () => {
    try {
      if (service) assert.equal(await service.stop(), 0);
    } finally {
      await refuseNtlm(false);
      await accounts?.removeAll();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves GET, PROPFIND and PUT as carla, with carla\'s rights and not the caller\'s, without her password', async () => {
    const carla = via('carla');
    const own = new DavClient(service!, account(env, 'carla'));
    const get = await carla.text('Aushang.txt');
    assert.equal(get.status, 200);
    assert.equal(get.body, (await own.text('Aushang.txt')).body);
    const propfind = async (client: DavClient) => {
      const res = await client.request('PROPFIND', WRITABLE, { headers: { depth: '1' } });
      return { status: res.status, names: NAMES(await res.text()) };
    };
    const listing = await propfind(carla);
    assert.equal(listing.status, 207);
    assert.deepEqual(listing, await propfind(own), 'the same listing as her own login');
    const file = `${WRITABLE}/${prefix}.txt`;
    try {
      assert.equal((await carla.put(file, 'von carla über das Portal\n')).status, 201);
      assert.equal((await own.text(file)).body, 'von carla über das Portal\n');
    } finally {
      assert.equal(await own.remove(file), 204);
    }
    // Refused exactly as the file server refuses carla herself.
    for (const [method, path, body] of [['GET', 'Lehrerzimmer/.wiki/index.md', undefined], ['PUT', `${prefix}-root.txt`, 'x']] as const) {
      const [delegated, direct] = await Promise.all([via('carla').request(method, path, body === undefined ? {} : { body }), own.request(method, path, body === undefined ? {} : { body })]);
      assert.equal(delegated.status, 403, `${method} ${path}`);
      assert.equal(delegated.status, direct.status, `${method} ${path}: as over her own login`);
      assert.equal((await errorOf(delegated)).error, 'access_denied');
    }
    // A teacher named by the same caller reads what carla may not.
    assert.equal((await via('anna').request('GET', 'Lehrerzimmer/.wiki/index.md')).status, 200);
  });

  it('refuses, naming the rule and counting it, accounts a trusted caller may not act for, those that cannot log on, and unknown users', async () => {
    const protectedUser = await accounts.createUser(`${prefix}-prot`, ['Schueler', 'Protected Users']);
    const disabled = await accounts.createUser(`${prefix}-off`, ['Schueler']);
    await accounts.disable(disabled.name);
    const locked = await accounts.createUser(`${prefix}-lck`, ['Schueler']);
    await accounts.lockOut(locked.name);
    const expired = await accounts.createUser(`${prefix}-exp`, ['Schueler']);
    await accounts.expire(expired.name);
    const passwordExpired = await accounts.createUser(`${prefix}-pwx`, ['Schueler']);
    await accounts.expirePassword(passwordExpired.name);
    const cases = [
      [sensitiveUser.user, 'service_user_not_delegated'],
      [protectedUser.name, 'service_user_protected_user'],
      ['krbtgt', 'service_user_krbtgt'],
      [env.indexer.user, 'service_user_indexer'],
      [portal.name, 'service_user_trusted_caller'],
      [env.dc_admin.user, 'service_user_admin'],
      [disabled.name, 'service_user_disabled'],
      [locked.name, 'service_user_locked'],
      [expired.name, 'service_user_expired'],
      [passwordExpired.name, 'service_user_password_expired'],
      [`${prefix}-nobody`, 'service_user_unknown'],
    ] as const;
    for (const [user, error] of cases) {
      const answer = await errorOf(await via(user).request('GET', 'Aushang.txt'));
      assert.deepEqual([answer.status, answer.error], [403, error], `${user}: ${answer.message}`);
    }
    const metrics = await (await fetch(`${service!.url}/metrics`)).text();
    assert.match(metrics, /^fileproxy_wiki_service_user_refusals_total\{rule="not_delegated"\} [1-9]/m);
    for (const rule of ['krbtgt', 'disabled', 'locked', 'expired', 'password_expired']) {
      assert.match(metrics, new RegExp(`^fileproxy_wiki_service_user_refusals_total\\{rule="${rule}"\\} [1-9]`, 'm'), rule);
    }
  });

  it('answers an untrusted caller as the wiki does, a wrong caller password 401, a malformed header 400', async () => {
    const untrusted = await errorOf(await via('carla', account(env, 'anna')).request('GET', 'Aushang.txt'));
    assert.deepEqual([untrusted.status, untrusted.error], [403, 'untrusted_caller']);
    const wrong = await via('carla', { user: portal.name, password: 'not the portal\'s' }).request('GET', 'Aushang.txt');
    assert.equal(wrong.status, 401);
    const malformed = await new DavClient(service!, caller, 'schule', { 'x-service-user': 'anna,ben' }).request('GET', 'Aushang.txt');
    const bad = await errorOf(malformed);
    assert.deepEqual([bad.status, bad.error], [400, 'bad_service_user_header']);
  });

  describe('the KDC decides too', () => {
    let other: RunningService | undefined;
    after(async () => {
      if (other) assert.equal(await other.stop(), 0);
    });

    it('names the KDC\'s refusal of a service outside msDS-AllowedToDelegateTo (403), and no KDC answering (503)', async () => {
      // The file server's SPN as the config names it is not among svc-proxy's delegation targets.
      other = await startService({
        kerberos: { ...kerberosConfig, spns: { [env.smb.host]: 'ldap/DC1.edu.test' }, delegation: delegation() },
        smb: { auth: 'kerberos' },
        wiki: { trusted_callers: [portal.name] },
      });
      const refused = await errorOf(await via('carla', caller, other).request('GET', 'Aushang.txt'));
      assert.deepEqual([refused.status, refused.error], [403, 'delegation_service_not_allowed'], refused.message);
      assert.match(refused.message, /msDS-AllowedToDelegateTo/);
      assert.equal(await other.stop(), 0);
      other = await startService({
        kerberos: { ...kerberosConfig, kdcs: ['127.0.0.1:1'], delegation: delegation() },
        smb: { auth: ownLogonAuth(env) },
        wiki: { trusted_callers: [portal.name] },
      });
      const down = await errorOf(await via('carla', caller, other).request('GET', 'Aushang.txt'));
      assert.deepEqual([down.status, down.error], [503, 'kdc_unavailable'], down.message);
    });

    it('without kerberos.delegation refuses X-Service-User from a trusted caller (never served as the caller)', async () => {
      if (other) assert.equal(await other.stop(), 0);
      await refuseNtlm(false);
      other = await startService({ wiki: { trusted_callers: [portal.name] } });
      const answer = await errorOf(await via('carla', caller, other).request('GET', 'Aushang.txt'));
      assert.deepEqual([answer.status, answer.error], [403, 'delegation_not_configured'], answer.message);
      const untrusted = await errorOf(await via('carla', account(env, 'anna'), other).request('GET', 'Aushang.txt'));
      assert.deepEqual([untrusted.status, untrusted.error], [403, 'untrusted_caller']);
    });
  });
});
