// Constrained delegation with protocol transition against the testbed DC: the proxy's service account gets a
// cifs/ ticket in a user's name without the user's password (S4U2Self, then S4U2Proxy), and the SMB session with
// it has that user's rights, not the service account's; the KDC's refusals are named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DelegationRefusedError, type DelegationRefusal } from '../../../src/kerberos/s4u.js';
import { SmbLogons } from '../../../src/logon/smb-logons.js';
import { SmbClient, SmbError } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, fileServerSpn, kdcSettings, kerberosConfig, refuseNtlm, sensitiveUser } from '../../testbed/kerberos.js';
import { kerberosTestConfig } from './config.js';

const settings = kdcSettings();

describe('Kerberos constrained delegation (S4U2Self, S4U2Proxy)', () => {
  let env: TestbedEnv;
  let smb: SmbClient;
  let service: KerberosClient;
  before(async () => {
    env = await readTestbedEnv();
    await ensureDelegationAccounts();
    await refuseNtlm(true);
    smb = new SmbClient();
    service = new KerberosClient(settings, delegationAccount.user, { password: delegationAccount.password }, { forwardable: true });
  });
  after(async () => {
    await refuseNtlm(false);
    await smb.close();
  });

  it('reaches the share as carla with carla\'s rights, without her password', async () => {
    const ticket = await service.onBehalfOf('carla').serviceTicket(fileServerSpn);
    assert.deepEqual(ticket.client.names, ['carla']);
    assert.deepEqual(ticket.ticket.sname.names, fileServerSpn.split('/'));
    const share = smb.share({
      host: env.smb.host,
      port: env.smb.port,
      domain: env.smb.domain,
      user: 'carla',
      password: '',
      kerberos: { client: service.onBehalfOf('carla'), spn: fileServerSpn, fallbackToNtlm: false, delegatedBy: delegationAccount.user },
      share: 'schule',
    });
    assert.ok((await share.readdir('')).some((e) => e.name === 'Aushang.txt'));
    await assert.rejects(share.readdir('Lehrerzimmer'), (e: unknown) => e instanceof SmbError && e.code === 'ACCESS_DENIED', 'a pupil, not the service account');
  });

  it('is refused, naming which reason, for a service outside msDS-AllowedToDelegateTo, for a sensitive user, and without a forwardable TGT', async () => {
    const refused = (reason: DelegationRefusal, text: RegExp) => (e: unknown): boolean => e instanceof DelegationRefusedError && e.reason === reason && text.test(e.message);
    await assert.rejects(service.onBehalfOf('carla').serviceTicket('ldap/DC1.edu.test'), refused('service_not_allowed', /msDS-AllowedToDelegateTo/));
    await assert.rejects(service.onBehalfOf(sensitiveUser.user).serviceTicket(fileServerSpn), refused('user_not_delegable', /sensitive/));
    const notForwardable = new KerberosClient(settings, delegationAccount.user, { password: delegationAccount.password });
    await assert.rejects(notForwardable.onBehalfOf('carla').serviceTicket(fileServerSpn), refused('tgt_not_forwardable', /forwardable/));
  });

  it('SmbLogons.delegated: the delegation account\'s keytab, Kerberos only, a session pooled apart from one with an empty password', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'delegation-'));
    const pool = new SmbClient();
    try {
      const keytab = join(dir, 'proxy.keytab');
      await exportKeytab(delegationAccount.user, keytab);
      const config = kerberosTestConfig(env, { auth: 'kerberos', kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: keytab } } });
      const logons = new SmbLogons(config, { delegationKeytab: await readFile(keytab) });
      assert.ok(logons.delegates);
      assert.equal(new SmbLogons(config).delegates, false, 'without the keytab read');
      const delegated = logons.delegated(env.smb.host, 'carla');
      assert.deepEqual([delegated.password, delegated.kerberos?.fallbackToNtlm, delegated.kerberos?.delegatedBy], ['', false, delegationAccount.user]);
      const share = pool.share({ host: env.smb.host, port: env.smb.port, ...delegated, share: 'schule' });
      assert.ok((await share.readdir('')).some((e) => e.name === 'Aushang.txt'));
      await assert.rejects(share.readdir('Lehrerzimmer'), (e: unknown) => e instanceof SmbError && e.code === 'ACCESS_DENIED');
      // carla's own logon with an empty password must not find the delegated session in the pool.
      const empty = pool.share({ host: env.smb.host, port: env.smb.port, ...logons.user(env.smb.host, env.smb.domain, 'carla', ''), share: 'schule' });
      await assert.rejects(empty.readdir(''), (e: unknown) => e instanceof SmbError && e.code === 'LOGON_FAILURE');
      await assert.rejects(
        pool.share({ host: env.smb.host, port: env.smb.port, ...logons.delegated(env.smb.host, sensitiveUser.user), share: 'schule' }).readdir(''),
        (e: unknown) => e instanceof SmbError && e.cause instanceof DelegationRefusedError && e.cause.reason === 'user_not_delegable',
      );
    } finally {
      await pool.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
