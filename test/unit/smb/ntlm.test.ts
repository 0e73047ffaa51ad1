import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { authenticateMessage, negotiateMessage, ntlmV2Response, ntowfV2, parseChallenge } from '../../../src/smb/ntlm.js';
import { negTokenInit, negTokenResp, parseNegTokenResp } from '../../../src/kerberos/spnego.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// MS-NLMP 4.2.4 "NTLMv2 Authentication": User "User", UserDom "Domain", Passwd "Password", Time 0,
// ClientChallenge aa*8, ServerChallenge 0123456789abcdef, AV pairs NbDomainName "Domain" + NbComputerName "Server".
const targetInfo = hex(
  '02000c0044006f006d00610069006e00 01000c00530065007200760065007200 00000000',
);

test('NTOWFv2 matches MS-NLMP 4.2.4.1.1', () => {
  assert.equal(ntowfV2('Password', 'User', 'Domain').toString('hex'), '0c868a403bfd7a93a3001ef22ef02e3f');
});

test('NTLMv2 response, LMv2 response and session base key match MS-NLMP 4.2.4.2', () => {
  const r = ntlmV2Response(
    ntowfV2('Password', 'User', 'Domain'),
    hex('0123456789abcdef'),
    Buffer.alloc(8, 0xaa),
    Buffer.alloc(8),
    targetInfo,
    true,
  );
  assert.equal(r.lmChallengeResponse.toString('hex'), '86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
  assert.equal(r.ntChallengeResponse.subarray(0, 16).toString('hex'), '68cd0ab851e51c96aabc927bebef6a1c');
  assert.equal(r.sessionBaseKey.toString('hex'), '8de40ccadbc14a82f15cb0ad0de95ca3');
});

function challengeMessage(info: Buffer, flags = 0xe28a8215): Buffer {
  const m = Buffer.alloc(48 + info.length);
  m.write('NTLMSSP\0', 0, 'latin1');
  m.writeUInt32LE(2, 8);
  m.writeUInt32LE(flags, 20);
  hex('0123456789abcdef').copy(m, 24);
  m.writeUInt16LE(info.length, 40);
  m.writeUInt16LE(info.length, 42);
  m.writeUInt32LE(48, 44);
  info.copy(m, 48);
  return m;
}

const field = (message: Buffer, at: number): Buffer =>
  message.subarray(message.readUInt32LE(at + 4), message.readUInt32LE(at + 4) + message.readUInt16LE(at));
/** MsvAvFlags = 0x2 (MIC present) followed by MsvAvEOL. */
const micFlagsAndEol = hex('06000400 02000000 00000000');

test('AUTHENTICATE carries the fields at the offsets it announces', () => {
  const challenge = parseChallenge(challengeMessage(targetInfo));
  assert.equal(challenge.timestamp, null);
  const { message, sessionKey } = authenticateMessage(negotiateMessage(), challenge, { domain: 'EDU', user: 'anna', password: 'pw' });
  assert.equal(sessionKey.length, 16);
  assert.equal(field(message, 28).toString('utf16le'), 'EDU');
  assert.equal(field(message, 36).toString('utf16le'), 'anna');
  assert.equal(field(message, 20).length, 16 + 28 + targetInfo.length - 4 + micFlagsAndEol.length + 4);
  assert.equal(field(message, 12).length, 24);
  assert.equal(message.readUInt32LE(12 + 4), 88, 'the payload follows Version and MIC');
});

test('AUTHENTICATE carries a MIC over NEGOTIATE, CHALLENGE and AUTHENTICATE, announced in MsvAvFlags (MS-NLMP 3.1.5.1.2)', () => {
  // The 4.2.4 target info (NbDomainName, NbComputerName) plus an MsvAvTimestamp, as every current server sends.
  const time = hex('0090d336b734c301');
  const withTimestamp = Buffer.concat([targetInfo.subarray(0, -4), hex('07000800'), time, hex('00000000')]);
  const challengeBytes = challengeMessage(withTimestamp);
  const negotiate = negotiateMessage();
  const { message, sessionKey } = authenticateMessage(negotiate, parseChallenge(challengeBytes), { domain: 'Domain', user: 'User', password: 'Password' });

  const withoutMic = Buffer.from(message);
  withoutMic.fill(0, 72, 88);
  const mic = createHmac('md5', sessionKey).update(negotiate).update(challengeBytes).update(withoutMic).digest();
  assert.equal(message.subarray(72, 88).toString('hex'), mic.toString('hex'));

  const nt = field(message, 20);
  const blob = nt.subarray(16); // NTProofStr, then the signed client blob (MS-NLMP 2.2.2.7)
  assert.equal(blob.subarray(8, 16).toString('hex'), time.toString('hex'), 'the server timestamp is used');
  const signedTargetInfo = blob.subarray(28, blob.length - 4);
  assert.equal(signedTargetInfo.toString('hex'), Buffer.concat([withTimestamp.subarray(0, -4), micFlagsAndEol]).toString('hex'));
  assert.equal(field(message, 12).toString('hex'), '00'.repeat(24), 'with a server timestamp the LMv2 response is empty');
  // The session base key and NTProofStr still follow 4.2.4.2 for that blob.
  const proof = createHmac('md5', ntowfV2('Password', 'User', 'Domain')).update(hex('0123456789abcdef')).update(blob).digest();
  assert.equal(nt.subarray(0, 16).toString('hex'), proof.toString('hex'));
});

test('a challenge whose target info points outside the message is rejected', () => {
  const m = challengeMessage(targetInfo);
  m.writeUInt32LE(4000, 44);
  assert.throws(() => parseChallenge(m), { code: 'PROTOCOL_ERROR' });
  assert.throws(() => parseChallenge(Buffer.from('NTLMSSP\0')), { code: 'PROTOCOL_ERROR' });
});

test('SPNEGO: tokens round-trip and malformed tokens raise errors', () => {
  const init = negTokenInit(negotiateMessage());
  assert.equal(init[0], 0x60);
  const inner = Buffer.from('hello');
  // A server NegTokenResp: negState accept-incomplete plus a response token.
  const resp = Buffer.from([0xa1, 0x10, 0x30, 0x0e, 0xa0, 0x03, 0x0a, 0x01, 0x01, 0xa2, 0x07, 0x04, 0x05, ...inner]);
  assert.deepEqual(parseNegTokenResp(resp), { negState: 1, supportedMech: null, responseToken: inner, mechListMic: null });
  assert.deepEqual(parseNegTokenResp(negTokenResp({ responseToken: inner })).responseToken, inner);
  const mic = Buffer.alloc(16, 0x4d);
  assert.deepEqual(parseNegTokenResp(negTokenResp({ responseToken: inner, mechListMic: mic })), { negState: null, supportedMech: null, responseToken: inner, mechListMic: mic });
  assert.throws(() => parseNegTokenResp(resp.subarray(0, 8)), { code: 'PROTOCOL_ERROR' });
  assert.throws(() => parseNegTokenResp(Buffer.from([0xa1, 0x84, 0xff, 0xff, 0xff, 0xff])), { code: 'PROTOCOL_ERROR' });
});
