// fileproxy doctor's Kerberos checks against the testbed DC: a TGT with the password or the keytab, a ticket for
// each file server's SPN, and failures that name the fix (a wrong SPN, a keytab of another account).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkKerberos } from '../../../src/doctor/kerberos.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { exportKeytab, fileServerSpn, kerberosConfig } from '../../testbed/kerberos.js';
import { kerberosTestConfig } from './config.js';

const configWith = (env: TestbedEnv, kerberos: object | null, keytab?: string) => kerberosTestConfig(env, { kerberos, ...(keytab ? { keytab } : {}) });

describe('doctor: Kerberos', () => {
  let env: TestbedEnv;
  let dir: string;
  before(async () => {
    env = await readTestbedEnv();
    dir = await mkdtemp(join(tmpdir(), 'kerberos-doctor-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('is skipped without a kerberos section, and passes with the password and with a keytab', async () => {
    assert.equal((await checkKerberos(configWith(env, null), env.indexer.password))[0]!.status, 'skip');
    const withPassword = await checkKerberos(configWith(env, kerberosConfig), env.indexer.password);
    assert.deepEqual(withPassword.map((r) => [r.name, r.status]), [['Kerberos KDC', 'ok'], [`Kerberos SPN ${fileServerSpn}`, 'ok']]);
    const keytab = join(dir, 'indexer.keytab');
    await exportKeytab(env.indexer.user, keytab);
    const withKeytab = await checkKerberos(configWith(env, kerberosConfig, keytab), undefined);
    assert.match(withKeytab[0]!.detail, /with its keytab/);
    assert.ok(withKeytab.every((r) => r.status === 'ok'), JSON.stringify(withKeytab));
  });

  it('names the fix for an SPN the directory lacks and for a keytab of another account', async () => {
    const wrongSpn = await checkKerberos(configWith(env, { ...kerberosConfig, spns: { [env.smb.host]: 'cifs/nosuch.edu.test' } }), env.indexer.password);
    assert.equal(wrongSpn[1]!.status, 'fail');
    assert.match(wrongSpn[1]!.fix!, /samba-tool spn add cifs\/nosuch\.edu\.test .*setspn -S/);
    const other = join(dir, 'anna.keytab');
    await exportKeytab('anna', other);
    const wrongKeytab = await checkKerberos(configWith(env, kerberosConfig, other), undefined);
    assert.equal(wrongKeytab[0]!.status, 'fail');
    assert.match(wrongKeytab[0]!.detail, /no key for svc-indexer@EDU\.TEST/);
  });
});
