import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aes256Sha1, randomKey } from '../../../src/kerberos/crypto.js';
import { encode, fields, int, octets, app, time } from '../../../src/kerberos/der.js';
import { KerberosError } from '../../../src/kerberos/errors.js';
import type { Credential } from '../../../src/kerberos/exchanges.js';
import { initiateContext } from '../../../src/kerberos/gss.js';
import { KeyUsage, parseKdcReply } from '../../../src/kerberos/messages.js';
import { KERBEROS_MECH_TYPES, negTokenInit } from '../../../src/kerberos/spnego.js';
import { mutate, prng } from '../smb/frames.js';
import { kdcRep } from './frames.js';

const sessionKey = randomKey(18);
const reply = parseKdcReply(kdcRep(13));
const credential: Credential = {
  client: { type: 1, names: ['anna'] },
  crealm: 'EDU.TEST',
  ticket: reply.kind === 'rep' ? reply.rep.ticket : assert.fail(),
  key: sessionKey,
  flags: 0,
  authtime: new Date(),
  starttime: new Date(),
  endtime: new Date(Date.now() + 3600_000),
};

/** The acceptor's AP-REP token: EncAPRepPart {ctime, cusec, subkey} under the session key, GSS-framed. */
function apRepToken(ctime: Date, cusec: number, subkey: Buffer, key = sessionKey.value): Buffer {
  const part = encode(app(27, fields([0, time(ctime)], [1, int(cusec)], [2, fields([0, int(18)], [1, octets(subkey)])])));
  const apRep = encode(app(15, fields([0, int(5)], [1, int(15)], [2, fields([0, int(18)], [2, octets(aes256Sha1.encrypt(key, KeyUsage.AP_REP_ENC_PART, part))])])));
  const body = Buffer.concat([Buffer.from('06092a864886f712010202', 'hex'), Buffer.from([2, 0]), apRep]);
  return Buffer.concat([Buffer.from([0x60, 0x81, body.length]), body]);
}

test('the AP-REQ token is a GSS InitialContextToken of the Kerberos mechanism, in SPNEGO offering only Kerberos', () => {
  const { token } = initiateContext(credential);
  assert.equal(token[0], 0x60);
  assert.ok(token.includes(Buffer.from('06092a864886f712010202', 'hex')));
  const spnego = negTokenInit(token, KERBEROS_MECH_TYPES);
  assert.ok(!spnego.includes(Buffer.from('2b0601040182370202', 'hex')), 'the NTLMSSP OID is not offered');
});

test('mutual authentication: the acceptor subkey of a matching AP-REP is the context key; a reply to another authenticator or under another key is refused', () => {
  const now = new Date(Date.UTC(2026, 10, 26, 14, 0, 5, 250));
  const subkey = Buffer.alloc(32, 9);
  assert.deepEqual(initiateContext(credential, now).complete(apRepToken(now, 250_000, subkey)), { etype: 18, value: subkey });
  assert.throws(() => initiateContext(credential, now).complete(apRepToken(now, 251_000, subkey)), /does not answer this authenticator/);
  assert.throws(
    () => initiateContext(credential, now).complete(apRepToken(now, 250_000, subkey, Buffer.alloc(32, 1))),
    (e: unknown) => e instanceof KerberosError && e.code === 'INTEGRITY',
  );
});

test('the AP-REP token parser survives 20,000 mutated tokens with only KerberosErrors', () => {
  const now = new Date();
  const seed = apRepToken(now, (now.getTime() % 1000) * 1000, Buffer.alloc(32, 5));
  const rnd = prng(0x6755);
  // One context for every token: complete() only reads it, and sealing an authenticator per token was most of the
  // test's time.
  const context = initiateContext(credential, now);
  for (let i = 0; i < 20_000; i++) {
    const input = mutate(seed, rnd);
    try {
      context.complete(input);
    } catch (err) {
      if (!(err instanceof KerberosError)) assert.fail(`non-Kerberos error ${String(err)} for ${input.toString('hex').slice(0, 200)}`);
    }
  }
});
