// fileproxy doctor's Kerberos checks against the testbed DC: where the KDCs are (config or DNS SRV records), a TGT with
// the password or the keytab, the clock skew in seconds, a ticket for each file server's SPN, the delegation account
// as kerberos.delegation expects it, and failures that name the fix (a wrong SPN, a keytab of another account or of
// an older password, a realm DNS has no KDC for, delegation settings the directory lacks).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkKerberos } from '../../../src/doctor/kerberos.js';
import type { Directory } from '../../../src/ldap/directory.js';
import { run } from '../../testbed/processes.js';
import { dcDnsServer } from '../../testbed/domain.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, fileServerSpn, kerberosConfig } from '../../testbed/kerberos.js';
import { kerberosTestConfig, testbedDirectory } from './config.js';

const configWith = (env: TestbedEnv, kerberos: object | null, keytab?: string) => kerberosTestConfig(env, { kerberos, ...(keytab ? { keytab } : {}) });
const statuses = (results: { name: string; status: string }[]) => results.map((r) => [r.name, r.status]);

describe('doctor: Kerberos', () => {
  let env: TestbedEnv;
  let dir: string;
  let directory: Directory;
  before(async () => {
    env = await readTestbedEnv();
    dir = await mkdtemp(join(tmpdir(), 'kerberos-doctor-'));
    directory = testbedDirectory(env);
    await ensureDelegationAccounts();
  });
  after(async () => {
    await directory.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is skipped without a kerberos section, and passes with the password and with a keytab, naming the clock skew in seconds', async () => {
    assert.equal((await checkKerberos(configWith(env, null), env.indexer.password))[0]!.status, 'skip');
    const withPassword = await checkKerberos(configWith(env, kerberosConfig), env.indexer.password);
    assert.deepEqual(statuses(withPassword), [['Kerberos KDC', 'ok'], ['Kerberos clock', 'ok'], [`Kerberos SPN ${fileServerSpn}`, 'ok']]);
    assert.match(withPassword[1]!.detail, /^the KDC's clock is [01] s (ahead of|behind) this host's/);
    const keytab = join(dir, 'indexer.keytab');
    await exportKeytab(env.indexer.user, keytab);
    const withKeytab = await checkKerberos(configWith(env, kerberosConfig, keytab), undefined, directory);
    assert.match(withKeytab[0]!.detail, /with its keytab from 127\.0\.0\.1:88/);
    assert.ok(withKeytab.every((r) => r.status === 'ok'), JSON.stringify(withKeytab));
  });

  it('finds the KDCs in DNS without kerberos.kdcs, and names the records and the fix when DNS has none', async () => {
    const { kdcs: _listed, ...fromDns } = { ...kerberosConfig, dns_servers: [dcDnsServer] };
    const found = await checkKerberos(configWith(env, fromDns), env.indexer.password);
    assert.deepEqual(found[0], { name: 'Kerberos KDC location', status: 'ok', detail: 'DNS SRV records name 127.0.0.1:88 for EDU.TEST' });
    assert.ok(found.every((r) => r.status === 'ok'), JSON.stringify(found));
    const none = await checkKerberos(configWith(env, { ...fromDns, realm: 'NOSUCH.EDU.TEST' }), env.indexer.password);
    assert.equal(none.length, 1);
    assert.equal(none[0]!.status, 'fail');
    assert.match(none[0]!.detail, /DNS has no SRV record _kerberos\._tcp\.nosuch\.edu\.test/);
    assert.match(none[0]!.fix!, /kerberos\.kdcs.*samba-tool dns query <DC> nosuch\.edu\.test _kerberos\._tcp SRV.*nltest \/dsregdns/);
  });

  it('names the fix for an SPN the directory lacks and for a keytab of another account', async () => {
    const wrongSpn = await checkKerberos(configWith(env, { ...kerberosConfig, spns: { [env.smb.host]: 'cifs/nosuch.edu.test' } }), env.indexer.password);
    assert.equal(wrongSpn[2]!.status, 'fail');
    assert.match(wrongSpn[2]!.fix!, /samba-tool spn add cifs\/nosuch\.edu\.test .*setspn -S/);
    const other = join(dir, 'anna.keytab');
    await exportKeytab('anna', other);
    const wrongKeytab = await checkKerberos(configWith(env, kerberosConfig, other), undefined);
    assert.equal(wrongKeytab[0]!.status, 'fail');
    assert.match(wrongKeytab[0]!.detail, /no key for svc-indexer@EDU\.TEST/);
  });

  describe('the delegation account of kerberos.delegation', () => {
    const { user, spn, password } = delegationAccount;
    let keytab: string;
    const delegation = (more: object = {}) => ({ ...kerberosConfig, delegation: { account: user, keytab_file: keytab, http_spn: spn, ...more } });
    const samba = (...args: string[]) => run('samba-tool', [...args, '-s', env.samba.conf]);
    before(async () => {
      keytab = join(dir, 'proxy.keytab');
      await exportKeytab(user, keytab);
    });

    it('passes when the directory has what the config expects', async () => {
      const results = await checkKerberos(configWith(env, delegation()), env.indexer.password, directory);
      assert.deepEqual(statuses(results).slice(3), [
        [`Kerberos delegation ${user} keytab`, 'ok'],
        [`Kerberos delegation ${user} protocol transition`, 'ok'],
        [`Kerberos delegation ${user} target ${fileServerSpn}`, 'ok'],
        [`Kerberos delegation ${user} SPN ${spn}`, 'ok'],
      ]);
    });

    it('names each missing setting with its samba-tool and Windows fix', async () => {
      await samba('delegation', 'for-any-protocol', user, 'off');
      try {
        const results = await checkKerberos(
          configWith(env, { ...delegation({ http_spn: 'HTTP/other.edu.test' }), spns: { [env.smb.host]: 'cifs/nosuch.edu.test' } }),
          env.indexer.password,
          directory,
        );
        const fixes = Object.fromEntries(results.filter((r) => r.status === 'fail').map((r) => [r.name, r.fix]));
        assert.match(fixes[`Kerberos delegation ${user} protocol transition`]!, /samba-tool delegation for-any-protocol svc-proxy on .*Delegation tab.*Use any authentication protocol/);
        assert.match(fixes[`Kerberos delegation ${user} target cifs/nosuch.edu.test`]!, /samba-tool delegation add-service svc-proxy cifs\/nosuch\.edu\.test .*Delegation tab.*cifs/);
        assert.match(fixes[`Kerberos delegation ${user} SPN HTTP/other.edu.test`]!, /samba-tool spn add HTTP\/other\.edu\.test svc-proxy .*setspn -S HTTP\/other\.edu\.test svc-proxy/);
      } finally {
        await samba('delegation', 'for-any-protocol', user, 'on');
      }
    });

    it('says that a keytab holds an older key version than the directory after a password change', async () => {
      const stale = join(dir, 'stale-proxy.keytab');
      await exportKeytab(user, stale);
      await samba('user', 'setpassword', user, `--newpassword=${password}-changed`);
      try {
        const results = await checkKerberos(configWith(env, delegation({ keytab_file: stale })), env.indexer.password, directory);
        const failed = results.find((r) => r.status === 'fail');
        assert.equal(failed?.name, `Kerberos delegation ${user} keytab`);
        assert.match(failed.fix!, /the keytab holds key version (\d+) of svc-proxy, the directory's current one is (?!\1)\d+ \(msDS-KeyVersionNumber\).*export the keytab again/);
      } finally {
        await samba('user', 'setpassword', user, `--newpassword=${password}`);
      }
    });
  });
});
