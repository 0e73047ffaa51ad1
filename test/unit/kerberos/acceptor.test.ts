import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KerberosAcceptor } from '../../../src/kerberos/acceptor.js';
import { aes256Sha1, randomKey } from '../../../src/kerberos/crypto.js';
import { KerberosError, type KerberosErrorCode } from '../../../src/kerberos/errors.js';
import type { Credential } from '../../../src/kerberos/exchanges.js';
import { GssFlag, initiateContext } from '../../../src/kerberos/gss.js';
import type { KeytabEntry } from '../../../src/kerberos/keytab.js';
import { KeyUsage, TicketFlag, type Ticket } from '../../../src/kerberos/messages.js';
import { acceptNegotiate } from '../../../src/kerberos/negotiate.js';
import { ReplayCache, remoteReplayGuard } from '../../../src/kerberos/replay-cache.js';
import { s4u2proxy } from '../../../src/kerberos/s4u.js';
import { KERBEROS_MECH_TYPES, MECH_TYPES, NegState, negTokenInit, parseNegTokenResp } from '../../../src/kerberos/spnego.js';
import { mutate, prng } from '../smb/frames.js';
import { encTicketPart, serviceTicket } from './frames.js';
import { pacAuthorizationData, signedPac } from './pac-frames.js';
import { encode, fields, int, octets, seq } from '../../../src/kerberos/der.js';

const SERVICE = 'HTTP/files.edu.test';
const now = new Date(Date.UTC(2026, 10, 26, 16, 0, 7, 125));
const serviceKey = randomKey(18);
const keytab: KeytabEntry[] = [{ realm: 'EDU.TEST', names: SERVICE.split('/'), kvno: 3, key: serviceKey }];

/** carla's SID in the PACs of the tickets issued here. */
const CARLA_SID = 'S-1-5-21-1-2-3-1110';

/**
 * What a KDC would hand carla (or `client`) for `service`: a ticket sealed with the service's key (usage 2) with a
 * PAC naming CARLA_SID (`pac`: these authorization-data instead, as DER), and its session key.
 */
function issue(o: { client?: string; service?: string; key?: Buffer; flags?: number; endtime?: Date; etype?: number; pac?: (authtime: Date) => Buffer } = {}): Credential {
  const client = o.client ?? 'carla';
  const sessionKey = randomKey(18);
  const authtime = new Date(Math.floor(now.getTime() / 1000) * 1000 - 60_000);
  const endtime = o.endtime ?? new Date(now.getTime() + 3600_000);
  const flags = o.flags ?? TicketFlag.FORWARDABLE;
  const authorizationData = o.pac?.(authtime) ?? pacAuthorizationData(signedPac({
    domainSid: 'S-1-5-21-1-2-3', userRid: 1110, groupRids: [513, 1105], extraSids: ['S-1-18-1'], account: client, clientName: client, authtime,
    serviceKey: o.key ?? serviceKey.value,
  }));
  const part = encTicketPart({ flags, key: sessionKey.value, client, authtime, endtime, authorizationData });
  const cipher = aes256Sha1.encrypt(o.key ?? serviceKey.value, KeyUsage.TICKET, part);
  const service = o.service ?? SERVICE;
  const etype = o.etype ?? 18;
  const ticket: Ticket = { realm: 'EDU.TEST', sname: { type: 2, names: service.split('/') }, encPart: { etype, kvno: 3, cipher }, der: serviceTicket(service, cipher, 3, etype) };
  return { client: { type: 1, names: [client] }, crealm: 'EDU.TEST', ticket, key: sessionKey, flags, authtime, starttime: authtime, endtime };
}

function acceptor(o: { keys?: KeytabEntry[]; replays?: ReplayCache } = {}): KerberosAcceptor {
  return new KerberosAcceptor({ service: SERVICE, realm: 'EDU.TEST', keytab: o.keys ?? keytab, maxSkewSeconds: 300, replays: o.replays ?? new ReplayCache(300_000, 1000, 1000) });
}

/** The header a browser sends: the client's AP-REQ in a SPNEGO NegTokenInit offering Kerberos. */
const negotiateHeader = (token: Buffer): string => `Negotiate ${negTokenInit(token, KERBEROS_MECH_TYPES).toString('base64')}`;

const refused = (code: KerberosErrorCode, text?: RegExp) => (e: unknown) => e instanceof KerberosError && e.code === code && (!text || text.test(e.message));

test('a SPNEGO-wrapped AP-REQ from the project\'s client is accepted; its AP-REP in a NegTokenResp completes the client\'s mutual authentication', async () => {
  const initiator = initiateContext(issue(), now);
  const { context, wwwAuthenticate } = await acceptNegotiate(acceptor(), negotiateHeader(initiator.token), now);
  assert.equal(context.client, 'carla@EDU.TEST');
  assert.ok(context.gssFlags & GssFlag.MUTUAL);
  assert.match(wwwAuthenticate ?? '', /^Negotiate [A-Za-z0-9+/]+=*$/);
  const resp = parseNegTokenResp(Buffer.from(wwwAuthenticate!.slice('Negotiate '.length), 'base64'));
  assert.equal(resp.negState, NegState.ACCEPT_COMPLETED);
  assert.deepEqual(initiator.complete(resp.responseToken!), context.contextKey);
});

test('a bare Kerberos GSS token (no SPNEGO) is accepted and answered with a bare AP-REP token', async () => {
  const initiator = initiateContext(issue(), now);
  const { context, wwwAuthenticate } = await acceptNegotiate(acceptor(), `negotiate ${initiator.token.toString('base64')}`, now);
  assert.deepEqual(initiator.complete(Buffer.from(wwwAuthenticate!.slice(10), 'base64')), context.contextKey);
});

test('the accepted ticket is the evidence S4U2Proxy presents: it goes to the KDC unchanged', async () => {
  const cred = issue();
  const { context } = await acceptNegotiate(acceptor(), negotiateHeader(initiateContext(cred, now).token), now);
  assert.deepEqual(context.evidence.client, { type: 1, names: ['carla'] });
  assert.deepEqual(context.evidence.key, cred.key);
  assert.ok(context.evidence.flags & TicketFlag.FORWARDABLE);
  let sent: Buffer = Buffer.alloc(0);
  const kdc = { realm: 'EDU.TEST', send: async (m: Buffer) => ((sent = m), Promise.reject(new KerberosError('KDC_UNREACHABLE', 'test: no KDC'))) };
  await assert.rejects(s4u2proxy(kdc, issue({ service: 'krbtgt/EDU.TEST' }), context.evidence, 'cifs/DC1.edu.test', now), refused('KDC_UNREACHABLE'));
  assert.ok(sent.includes(cred.ticket.der), 'the TGS-REQ carries the client\'s ticket as its additional ticket');
});

test('a replayed Negotiate header is refused; a new authenticator on the same ticket is not', async () => {
  const cred = issue();
  const a = acceptor();
  const header = negotiateHeader(initiateContext(cred, now).token);
  await acceptNegotiate(a, header, now);
  await assert.rejects(acceptNegotiate(a, header, new Date(now.getTime() + 1000)), refused('REPLAY', /carla@EDU\.TEST/));
  // Until the skew check takes over: the authenticator is 300 s old (the limit) and still remembered.
  await assert.rejects(acceptNegotiate(a, header, new Date(now.getTime() + 300_000)), refused('REPLAY'));
  await assert.rejects(acceptNegotiate(a, header, new Date(now.getTime() + 301_000)), refused('CLOCK_SKEW'));
  await acceptNegotiate(a, negotiateHeader(initiateContext(cred, new Date(now.getTime() + 1)).token), now);
});

test('a cache behind a channel (its verdicts cross as plain data) refuses a replay as one in the thread does', async () => {
  const shared = new ReplayCache(300_000, 1000, 1000);
  const overChannel = () => remoteReplayGuard(async (...seen) => structuredClone(shared.verdict(...seen)));
  const front = (replays: ReturnType<typeof overChannel>) => new KerberosAcceptor({ service: SERVICE, realm: 'EDU.TEST', keytab, maxSkewSeconds: 300, replays });
  const header = negotiateHeader(initiateContext(issue(), now).token);
  await acceptNegotiate(front(overChannel()), header, now);
  // Another thread's acceptor, with a guard of its own onto the same cache.
  await assert.rejects(acceptNegotiate(front(overChannel()), header, now), refused('REPLAY', /presented before/));
});

test('an authenticator outside the clock skew is refused, naming the skew in seconds', async () => {
  const cred = issue();
  const late = new Date(now.getTime() - 400_000);
  await assert.rejects(acceptNegotiate(acceptor(), negotiateHeader(initiateContext(cred, late).token), now), refused('CLOCK_SKEW', /differ by 400 seconds \(at most 300/));
  const early = new Date(now.getTime() + 301_000);
  await assert.rejects(acceptNegotiate(acceptor(), negotiateHeader(initiateContext(cred, early).token), now), refused('CLOCK_SKEW', /301 seconds/));
  // Just over the limit is named as over it, not rounded down to the limit.
  const edge = new Date(now.getTime() - 300_400);
  await assert.rejects(acceptNegotiate(acceptor(), negotiateHeader(initiateContext(cred, edge).token), now), refused('CLOCK_SKEW', /differ by 301 seconds/));
  await acceptNegotiate(acceptor(), negotiateHeader(initiateContext(cred, new Date(now.getTime() - 299_000)).token), now);
});

test('a ticket under another key, for another service, expired, or marked invalid is refused', async () => {
  const token = (cred: Credential) => negotiateHeader(initiateContext(cred, now).token);
  const otherKey = [{ ...keytab[0]!, key: randomKey(18) }];
  await assert.rejects(acceptNegotiate(acceptor({ keys: otherKey }), token(issue()), now), refused('INTEGRITY'));
  await assert.rejects(acceptNegotiate(acceptor({ keys: [{ ...keytab[0]!, kvno: 4 }] }), token(issue()), now), refused('KEYTAB', /version 3/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ key: randomKey(18).value })), now), refused('INTEGRITY'));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ service: 'HTTP/other.edu.test' })), now), refused('TICKET_INVALID', /HTTP\/other\.edu\.test/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ endtime: new Date(now.getTime() - 600_000) })), now), refused('TICKET_INVALID', /expired/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ flags: TicketFlag.INVALID })), now), refused('TICKET_INVALID', /invalid/));
  assert.throws(() => acceptor({ keys: [{ ...keytab[0]!, names: ['HTTP', 'x'] }] }), refused('KEYTAB'));
  // What Samba does for an account without msDS-SupportedEncryptionTypes: the ticket sealed with RC4.
  const rc4Keys = [...keytab, { ...keytab[0]!, key: { etype: 23, value: Buffer.alloc(16, 1) } }];
  await assert.rejects(acceptNegotiate(acceptor({ keys: rc4Keys }), token(issue({ etype: 23 })), now), refused('UNSUPPORTED_ETYPE', /RC4.*msDS-SupportedEncryptionTypes/));
});

test('the client is who the ticket\'s PAC says: its SID and groups, signed with the service key', async () => {
  const { context } = await acceptNegotiate(acceptor(), negotiateHeader(initiateContext(issue(), now).token), now);
  assert.deepEqual(context.pac, { userSid: CARLA_SID, groupSids: ['S-1-5-21-1-2-3-513', 'S-1-5-21-1-2-3-1105', 'S-1-18-1'], account: 'carla' });
});

test('a ticket without a PAC, with a PAC signed with another key, or whose PAC names another client or logon time is refused', async () => {
  const token = (cred: Credential) => negotiateHeader(initiateContext(cred, now).token);
  const pac = (o: { key?: Buffer; clientName?: string; time?: (authtime: Date) => Date }) => (authtime: Date) => pacAuthorizationData(signedPac({
    domainSid: 'S-1-5-21-1-2-3', userRid: 1110, groupRids: [513], extraSids: [], account: 'carla',
    clientName: o.clientName ?? 'carla', authtime: o.time?.(authtime) ?? authtime, serviceKey: o.key ?? serviceKey.value,
  }));
  const noPac = () => encode(seq([fields([0, int(1)], [1, octets(encode(seq([])))])]));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ pac: noPac })), now), refused('PAC_INVALID', /carries none/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ pac: pac({ key: randomKey(18).value }) })), now), refused('PAC_INVALID', /server signature does not verify/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ pac: pac({ clientName: 'dora' }) })), now), refused('PAC_INVALID', /names dora, the ticket carla/));
  await assert.rejects(acceptNegotiate(acceptor(), token(issue({ pac: pac({ time: (t) => new Date(t.getTime() - 1000) }) })), now), refused('PAC_INVALID', /not the ticket's authtime/));
});

test('a client that offers NTLM, or a header that is not Negotiate, is refused by name', async () => {
  const ntlm = Buffer.from('NTLMSSP\0\x01\0\0\0', 'latin1');
  await assert.rejects(acceptNegotiate(acceptor(), `Negotiate ${ntlm.toString('base64')}`, now), refused('PROTOCOL_ERROR', /NTLM/));
  await assert.rejects(acceptNegotiate(acceptor(), `Negotiate ${negTokenInit(ntlm, MECH_TYPES).toString('base64')}`, now), refused('PROTOCOL_ERROR', /prefers NTLM/));
  await assert.rejects(acceptNegotiate(acceptor(), 'Basic Y2FybGE6eA==', now), refused('PROTOCOL_ERROR', /Negotiate <base64/));
  await assert.rejects(acceptNegotiate(acceptor(), `Negotiate ${'A'.repeat(100_000)}`, now), refused('PROTOCOL_ERROR', /longer than/));
});

test('the replay cache keeps an authenticator for the skew window only, and refuses rather than forget when full', () => {
  const cache = new ReplayCache(300_000, 2, 2);
  cache.admit('a@EDU.TEST', now, 1, now);
  cache.admit('a@EDU.TEST', now, 2, now);
  assert.throws(() => cache.admit('a@EDU.TEST', now, 1, now), refused('REPLAY'));
  assert.throws(() => cache.admit('b@EDU.TEST', now, 1, now), refused('REPLAY_CACHE_FULL', /holds 2 authenticators/));
  const later = new Date(now.getTime() + 300_001);
  cache.admit('b@EDU.TEST', later, 1, later);
  assert.equal(cache.size, 1, 'the expired entries are gone');
});

test('one user cannot fill the replay cache for everyone: past its quota only its own tokens are refused, until they age out', async () => {
  const a = acceptor({ replays: new ReplayCache(300_000, 30, 10) });
  // Real tokens, each a new authenticator (one millisecond apart), as a client that authenticates every request.
  const token = (cred: Credential, i: number, at = now) => negotiateHeader(initiateContext(cred, new Date(at.getTime() + i)).token);
  const carla = issue();
  for (let i = 0; i < 10; i++) await acceptNegotiate(a, token(carla, i), now);
  await assert.rejects(acceptNegotiate(a, token(carla, 10), now), refused('REPLAY_CACHE_FULL', /carla@EDU\.TEST has made 10 authenticators/));
  for (const user of ['dora', 'emil']) {
    const cred = issue({ client: user });
    for (let i = 0; i < 10; i++) await acceptNegotiate(a, token(cred, i), now);
  }
  // Three users at their quota fill the cache's total: a fourth is refused by the total, not by its quota.
  await assert.rejects(acceptNegotiate(a, token(issue({ client: 'fritz' }), 0), now), refused('REPLAY_CACHE_FULL', /holds 30 authenticators/));
  // Once carla's first authenticators are outside the skew window they make room for her, and for fritz.
  const later = new Date(now.getTime() + 300_002);
  await acceptNegotiate(a, token(carla, 0, later), later);
  await acceptNegotiate(a, token(issue({ client: 'fritz' }), 0, later), later);
});

test('the replay cache drops every client\'s expired entries, not only those of the client asking', () => {
  const cache = new ReplayCache(300_000, 100, 10);
  for (const client of ['a', 'b', 'c']) for (let i = 0; i < 5; i++) cache.admit(`${client}@EDU.TEST`, now, i, now);
  assert.equal(cache.size, 15);
  const later = new Date(now.getTime() + 300_001);
  cache.admit('d@EDU.TEST', later, 0, later);
  assert.equal(cache.size, 1, 'a, b and c are gone with their last entries');
});

test('10,000 malformed and mutated Negotiate tokens get only KerberosErrors', async () => {
  const cred = issue();
  const seeds = [
    negTokenInit(initiateContext(cred, now).token, KERBEROS_MECH_TYPES),
    initiateContext(cred, now).token,
    negTokenInit(Buffer.from('NTLMSSP\0', 'latin1'), MECH_TYPES),
  ];
  const a = acceptor();
  const rnd = prng(0x4e65);
  let reachedCrypto = 0;
  for (let i = 0; i < 10_000; i++) {
    const input = mutate(seeds[i % seeds.length]!, rnd);
    try {
      await acceptNegotiate(a, `Negotiate ${input.toString('base64')}`, now);
    } catch (err) {
      if (!(err instanceof KerberosError)) assert.fail(`non-Kerberos error ${String(err)} for ${input.toString('hex').slice(0, 200)}`);
      if (err.code === 'INTEGRITY' || err.code === 'REPLAY') reachedCrypto++;
    }
  }
  // Mutations inside a cipher keep the framing valid: the decryption and the checks behind it were reached.
  assert.ok(reachedCrypto > 500, `only ${reachedCrypto} mutated tokens reached the decryption`);
});
