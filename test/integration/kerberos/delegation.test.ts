// Constrained delegation with protocol transition against the testbed DC: the proxy's service account gets a
// cifs/ ticket in a user's name without the user's password (S4U2Self, then S4U2Proxy), and the SMB session with
// it has that user's rights, not the service account's; the KDC's refusals are named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import { SmbClient, SmbError } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, fileServerSpn, kdcSettings, refuseNtlm, sensitiveUser } from '../../testbed/kerberos.js';

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
      kerberos: { client: service.onBehalfOf('carla'), spn: fileServerSpn, fallbackToNtlm: false },
      share: 'schule',
    });
    assert.ok((await share.readdir('')).some((e) => e.name === 'Aushang.txt'));
    await assert.rejects(share.readdir('Lehrerzimmer'), (e: unknown) => e instanceof SmbError && e.code === 'ACCESS_DENIED', 'a pupil, not the service account');
  });

  it('is refused, naming why, for a service outside msDS-AllowedToDelegateTo, for a sensitive user, and without a forwardable TGT', async () => {
    const refused = (why: RegExp) => (e: unknown): boolean => e instanceof KerberosError && e.code === 'KDC_ERROR' && why.test(e.message);
    await assert.rejects(
      service.onBehalfOf('carla').serviceTicket('ldap/DC1.edu.test'),
      refused(/^delegation of carla to ldap\/DC1\.edu\.test refused: ldap\/DC1\.edu\.test is not in msDS-AllowedToDelegateTo of svc-proxy$/),
    );
    await assert.rejects(
      service.onBehalfOf(sensitiveUser.user).serviceTicket(fileServerSpn),
      refused(/refused: the KDC made sensibel's S4U2Self ticket not forwardable: sensibel is marked "sensitive and cannot be delegated" or is a member of Protected Users/),
    );
    const notForwardable = new KerberosClient(settings, delegationAccount.user, { password: delegationAccount.password });
    await assert.rejects(notForwardable.onBehalfOf('carla').serviceTicket(fileServerSpn), /forwardable TGT/);
  });
});
