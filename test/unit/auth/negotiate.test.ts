// A refused Negotiate token is answered to whoever sent it, credentials or not: the 401 says what the client can do,
// and the Kerberos text, which names the service's principal, its realm and how to export its keytab, is the
// error's log detail only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NegotiateAuth } from '../../../src/auth/negotiate.js';
import type { Config } from '../../../src/config/schema.js';
import { aes256Sha1, randomKey } from '../../../src/kerberos/crypto.js';
import type { Credential } from '../../../src/kerberos/exchanges.js';
import { initiateContext } from '../../../src/kerberos/gss.js';
import { KeyUsage, TicketFlag, type Ticket } from '../../../src/kerberos/messages.js';
import { KERBEROS_MECH_TYPES, negTokenInit } from '../../../src/kerberos/spnego.js';
import { HttpError } from '../../../src/http/http-error.js';
import { encTicketPart, serviceTicket } from '../kerberos/frames.js';
import { pacAuthorizationData, signedPac } from '../kerberos/pac-frames.js';

const SPN = 'HTTP/files.edu.test';
const REALM = 'EDU.TEST';
const KVNO = 3;
const serviceKey = randomKey(18);

/** An MIT keytab (0x502) holding the service's one key. */
function keytabFile(): Buffer {
  const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
  const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const counted = (b: Buffer) => Buffer.concat([u16(b.length), b]);
  const names = SPN.split('/');
  const entry = Buffer.concat([
    u16(names.length), counted(Buffer.from(REALM)), ...names.map((n) => counted(Buffer.from(n))),
    u32(1), u32(0), Buffer.from([KVNO]), u16(serviceKey.etype), counted(serviceKey.value),
  ]);
  return Buffer.concat([Buffer.from([5, 2]), u32(entry.length), entry]);
}

const CARLA_SID = 'S-1-5-21-1-2-3-1110';

/**
 * The header carla's client sends with a ticket for `service` sealed under key version `kvno`, with a PAC naming
 * CARLA_SID signed with the service key (`withPac` false: none).
 */
function negotiateHeader(service: string, kvno = KVNO, withPac = true): string {
  const now = Date.now();
  const sessionKey = randomKey(18);
  const authtime = new Date(Math.floor(now / 1000) * 1000 - 60_000);
  const endtime = new Date(now + 3600_000);
  const authorizationData = withPac ? pacAuthorizationData(signedPac({
    domainSid: 'S-1-5-21-1-2-3', userRid: 1110, groupRids: [513], extraSids: [], account: 'carla', clientName: 'carla', authtime, serviceKey: serviceKey.value,
  })) : undefined;
  const part = encTicketPart({ flags: TicketFlag.FORWARDABLE, key: sessionKey.value, client: 'carla', authtime, endtime, ...(authorizationData ? { authorizationData } : {}) });
  const cipher = aes256Sha1.encrypt(serviceKey.value, KeyUsage.TICKET, part);
  const ticket: Ticket = { realm: REALM, sname: { type: 2, names: service.split('/') }, encPart: { etype: 18, kvno, cipher }, der: serviceTicket(service, cipher, kvno) };
  const cred: Credential = { client: { type: 1, names: ['carla'] }, crealm: REALM, ticket, key: sessionKey, flags: TicketFlag.FORWARDABLE, authtime, starttime: authtime, endtime };
  return `Negotiate ${negTokenInit(initiateContext(cred).token, KERBEROS_MECH_TYPES).toString('base64')}`;
}

const config = { kerberos: { realm: REALM, delegation: { account: 'svc-proxy', keytab_file: '/etc/edu-fileproxy/proxy.keytab', http_spn: SPN } } } as unknown as Pick<Config, 'kerberos'>;
const negotiate = NegotiateAuth.fromConfig(config, keytabFile(), async () => ({ ok: true }))!;

/** The refusal of `header`, checked to name nothing of the deployment in what the client sees. */
async function refusal(header: string): Promise<HttpError> {
  const err = await negotiate.authenticate(header, 'Negotiate, Basic realm="edu-fileproxy"').then(() => assert.fail('accepted'), (e: unknown) => e);
  assert.ok(err instanceof HttpError);
  assert.equal(err.status, 401);
  const answered = JSON.stringify({ message: err.message, headers: err.headers });
  assert.doesNotMatch(answered, /files\.edu\.test|EDU\.TEST|svc-proxy|keytab_file|http_spn|samba-tool|ktpass|proxy\.keytab/i);
  return err;
}

describe('NegotiateAuth refusals', () => {
  it('accepts carla\'s ticket for the service (the fixture is sound)', async () => {
    const client = await negotiate.authenticate(negotiateHeader(SPN), 'Negotiate');
    assert.deepEqual([client.user, client.sid, client.groupSids], ['carla', CARLA_SID, ['S-1-5-21-1-2-3-513']]);
  });

  it('a ticket without a PAC: the client is told to get a new ticket; the log says what is wrong with the PAC', async () => {
    const err = await refusal(negotiateHeader(SPN, KVNO, false));
    assert.equal(err.code, 'negotiate_pac_invalid');
    assert.match(err.message, /no valid account data \(PAC\)/);
    assert.match(err.logDetail ?? '', /the ticket's PAC: the ticket carries none/);
  });

  it('a ticket for another service: the client is told to get one for the URL\'s host; the log names both principals', async () => {
    const err = await refusal(negotiateHeader('HTTP/other.edu.test'));
    assert.equal(err.code, 'negotiate_ticket_invalid');
    assert.match(err.message, /not for this service/);
    assert.match(err.logDetail ?? '', /HTTP\/other\.edu\.test@EDU\.TEST, this service is HTTP\/files\.edu\.test@EDU\.TEST/);
  });

  it('a ticket under a key version the keytab lacks: the client is told to send Basic; the log says how to export the keytab', async () => {
    const err = await refusal(negotiateHeader(SPN, KVNO + 1));
    assert.equal(err.code, 'negotiate_keytab');
    assert.match(err.message, /send Basic credentials/);
    assert.match(err.logDetail ?? '', /samba-tool domain exportkeytab --principal=HTTP\/files\.edu\.test@EDU\.TEST/);
  });

  it('a malformed token: said so, with the parser\'s reason in the log', async () => {
    const err = await refusal('Negotiate YWJj');
    assert.equal(err.code, 'negotiate_malformed');
    assert.ok(err.logDetail);
  });
});
