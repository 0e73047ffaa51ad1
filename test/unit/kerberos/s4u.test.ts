// How src/kerberos/s4u.ts tells the KDC's refusals of delegation apart: a service TGT or an S4U2Self evidence ticket
// without the forwardable flag is refused before anything is sent (the KDC would answer KDC_ERR_BADOPTION to both),
// and KDC_ERR_BADOPTION on S4U2Proxy with forwardable tickets is the target service's refusal. The KDC is scripted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '../../../src/kerberos/der.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import type { Credential, KdcChannel } from '../../../src/kerberos/exchanges.js';
import { KdcErrorCode, KdcOption } from '../../../src/kerberos/messages.js';
import { DelegationRefusedError, s4u2proxy, s4u2self } from '../../../src/kerberos/s4u.js';
import { krbError, stime, ticket } from './frames.js';

function credential(flags: number): Credential {
  return {
    client: { type: 1, names: ['svc-proxy'] },
    crealm: 'EDU.TEST',
    ticket: { realm: 'EDU.TEST', sname: { type: 2, names: ['krbtgt', 'EDU.TEST'] }, encPart: { etype: 18, cipher: Buffer.alloc(40) }, der: Buffer.from(encode(ticket())) },
    key: { etype: 18, value: Buffer.alloc(32, 1) },
    flags,
    authtime: stime,
    starttime: stime,
    endtime: new Date(stime.getTime() + 3_600_000),
  };
}

/** A KDC that answers every request with `reply`, counting them. */
function kdc(reply: Buffer): KdcChannel & { sent: number } {
  const channel = { realm: 'EDU.TEST', sent: 0, send: async () => { channel.sent++; return reply; } };
  return channel;
}

const refused = (reason: DelegationRefusedError['reason']) => (e: unknown) => e instanceof DelegationRefusedError && e.reason === reason;

describe('S4U refusals, named', () => {
  it('a service TGT that is not forwardable: refused before S4U2Self is sent', async () => {
    const channel = kdc(krbError(KdcErrorCode.BADOPTION));
    await assert.rejects(s4u2self(channel, credential(0), 'carla', stime), refused('tgt_not_forwardable'));
    assert.equal(channel.sent, 0);
  });

  it('an evidence ticket that is not forwardable (a user the KDC will not delegate): refused before S4U2Proxy is sent', async () => {
    const channel = kdc(krbError(KdcErrorCode.BADOPTION));
    await assert.rejects(s4u2proxy(channel, credential(KdcOption.FORWARDABLE), credential(0), 'cifs/DC1.edu.test', stime), refused('user_not_delegable'));
    assert.equal(channel.sent, 0);
  });

  it('KDC_ERR_BADOPTION on S4U2Proxy with forwardable tickets: the service is not a delegation target; other errors stay as they are', async () => {
    const forwardable = credential(KdcOption.FORWARDABLE);
    await assert.rejects(s4u2proxy(kdc(krbError(KdcErrorCode.BADOPTION)), forwardable, forwardable, 'ldap/DC1.edu.test', stime), refused('service_not_allowed'));
    await assert.rejects(
      s4u2proxy(kdc(krbError(KdcErrorCode.S_PRINCIPAL_UNKNOWN)), forwardable, forwardable, 'cifs/nosuch.edu.test', stime),
      (e: unknown) => e instanceof KerberosError && !(e instanceof DelegationRefusedError) && e.kdcError === KdcErrorCode.S_PRINCIPAL_UNKNOWN,
    );
  });
});
