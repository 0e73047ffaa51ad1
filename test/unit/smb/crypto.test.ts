import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import {
  Cipher,
  PreauthHash,
  SigningAlgorithm,
  aesCmac,
  decryptMessage,
  deriveSessionKeys,
  encryptMessage,
  signMessage,
  verifySignature,
} from '../../../src/smb/crypto.js';
import { Command, Dialect, HeaderFlags, parseTransform } from '../../../src/smb/header.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// RFC 4493 section 4, AES-CMAC test vectors (K = 2b7e1516 28aed2a6 abf71588 09cf4f3c).
test('AES-128-CMAC matches the RFC 4493 vectors', () => {
  const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
  const m = hex(
    '6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51 30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710',
  );
  assert.equal(aesCmac(key, Buffer.alloc(0)).toString('hex'), 'bb1d6929e95937287fa37d129b756746');
  assert.equal(aesCmac(key, m.subarray(0, 16)).toString('hex'), '070a16b46b4d4144f79bdd9dd04a287c');
  assert.equal(aesCmac(key, m.subarray(0, 40)).toString('hex'), 'dfa66747de9ae63030ca32611497c827');
  assert.equal(aesCmac(key, m).toString('hex'), '51f0bebf7e3b9d92fc49741779363cfe');
});

// Microsoft Open Specifications blog, "Encryption in SMB 3.0: A protocol perspective" (2012-10-05):
// SessionKey, the derived keys, an encrypted WRITE request and an encrypted WRITE response.
const smb30 = {
  sessionKey: hex('B4546771B515F766A86735532DD6C4F0'),
  sessionId: 0x8e40014000011n,
  encryptionKey: '261b72350558f2e9dcf613070383edbf',
  decryptionKey: '8fe2b57ec34d2db5b1a9727f526bbdb5',
  nonceField: hex('66E69A111892584FB5ED524A744DA3EE'),
  plain: hex(`FE534D4240000100000000000900400008000000000000000400000000000000
    FFFE0000010000001100001400E4080000000000000000000000000000000000
    3100700017000000000000000000000015010000390000020100000039020000
    00000000000000007000000000000000536D623320656E6372797074696F6E20
    74657374696E67`),
  transformed: hex(`FD534D4281A286535415445DAE393921E44FA42E66E69A111892584FB5ED524A
    744DA3EE87000000000001001100001400E4080025C8FEE16605A437832D1CD5
    2DA9F4645333482A175FE5384563F45FCDAFAEF38BC62BA4D5C62897996625A4
    4C29BE5658DE2E6117585779E7B59FFD971278D08580D7FA899E410E910EABF5
    AA1DB43050B33B49182637759AC15D84BFCDF5B6B238993C0F4CF4D6012023F6
    C627297075D84B7803912D0A9639634453595EF3E33FFE4E7AC2AB`),
  response: hex(`FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014
    00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079
    E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787
    1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1
    77309E5B`),
  responsePlain: hex(`FE534D4240000100000000000900210009000000000000000400000000000000
    FFFE0000010000001100001400E4080000000000000000000000000000000000
    11000000170000000000000000000000`),
};

test('SMB 3.0 key derivation and AES-128-CCM match the Microsoft blog vectors', () => {
  const keys = deriveSessionKeys(Dialect.SMB300, smb30.sessionKey, null);
  assert.equal(keys.encryptionKey!.toString('hex'), smb30.encryptionKey);
  assert.equal(keys.decryptionKey!.toString('hex'), smb30.decryptionKey);
  const wire = encryptMessage(Cipher.AES_128_CCM, keys.encryptionKey!, smb30.sessionId, smb30.plain, smb30.nonceField);
  assert.equal(wire.toString('hex'), smb30.transformed.toString('hex'));
  assert.deepEqual(decryptMessage(Cipher.AES_128_CCM, keys.encryptionKey!, parseTransform(smb30.transformed)), smb30.plain);
  assert.deepEqual(
    decryptMessage(Cipher.AES_128_CCM, keys.decryptionKey!, parseTransform(smb30.response)),
    smb30.responsePlain,
  );
});

// Microsoft Open Specifications blog, "SMB 3.1.1 Pre-authentication integrity in Windows 10" (2015-08-11):
// the hash after the NEGOTIATE request, and the signing key from the final hash and the session key.
test('SMB 3.1.1 pre-authentication hash and signing key match the Microsoft blog vectors', () => {
  const negotiateRequest = hex(`FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000
    00000000000000000000000000000000000000000000000024000500000000003F000000ECD86F32
    6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000
    010020000100FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000
    0200060000000000020002000100`);
  const h = new PreauthHash();
  h.update(negotiateRequest);
  assert.equal(
    h.digest.toString('hex'),
    'dd94efc5321bb618a2e208ba8920d2f422992526947a409b5037de1e0fe8c7362b8c47122594cde0ce26aa9dfc8bcdbde0621957672623351a7540f1e54a0426',
  );
  const finalHash = hex(`0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB7928622DDDAD522D97
    51640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01`);
  const keys = deriveSessionKeys(Dialect.SMB311, hex('270E1BA896585EEB7AF3472D3B4C75A7'), finalHash);
  assert.equal(keys.signingKey.toString('hex'), '73fe7a9a77bef0bde49c650d8ccb5f76');
});

// Microsoft Open Specifications blog, "SMB 3.1.1 Encryption in Windows 10" (2015-09-09): AES-128-GCM.
test('SMB 3.1.1 cipher keys and AES-128-GCM match the Microsoft blog vectors', () => {
  const preauth = hex(`B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDDDBA7DB256BA2EA30E9
    77F11F9B113247578E0E915C6D2A513B8F2FCA5707DC8770`);
  const keys = deriveSessionKeys(Dialect.SMB311, hex('419FDDF34C1E001909D362AE7FB6AF79'), preauth);
  assert.equal(keys.encryptionKey!.toString('hex'), 'a2f5e80e5d59103034f32e52f698e5ec');
  assert.equal(keys.decryptionKey!.toString('hex'), '748c50868c90f302962a5c35f5f9a8bf');
  const plain = hex(`FE534D4240000100000000000900010008000000000000000500000000000000FFFE000001000000
    25000000001000000000000000000000000000000000000031007000170000000000000000000000
    0600000004000000010000000400000000000000000000007000000000000000536D623320656E63
    72797074696F6E2074657374696E67`);
  const expected = hex(`FD534D42BD73D97D2BC9001BCAFAC0FDFF5FEEBCC7D6822D269CAF48904C664C0000000087000000
    0000010025000000001000006ECDD2A7AFC7B47763057A041B8FD4DAFFE990B70C9E09D36C084E02
    D14EF247F8BDE38ACF6256F8B1D3B56F77FBDEB312FEA5E92CBCC1ED8FB2EBBFAA75E49A4A394BB4
    4576545567C24D4C014D47C9FBDFDAFD2C4F9B72F8D256452620A299F48E29E53D6B61D1C13A19E9
    1AF013F00D17E3ABC2FC3D36C8C1B6B93973253852DBD442E46EE8`);
  const wire = encryptMessage(Cipher.AES_128_GCM, keys.encryptionKey!, 0x100000000025n, plain, expected.subarray(20, 36));
  assert.equal(wire.toString('hex'), expected.toString('hex'));
  const response = hex(`FD534D42ACBE1CB7ED343ADF1725EF144D90D4B0E06831DD2E8EB7B4000000000000000050000000
    00000100250000000010000026BBBF949983A6C1C796559D0F2C510CB651D1F7B6AC8DED32A2A0B8
    F2D793A815C6F6B848D69767A215841A42D400AE6DDB5F0B44173A014973321FDD7950DA6179159B
    82E03C9E18A050FF0EA1C967`);
  assert.equal(
    decryptMessage(Cipher.AES_128_GCM, keys.decryptionKey!, parseTransform(response)).toString('hex'),
    'fe534d4240000100000000000900010001000000000000000500000000000000fffe000001000000' +
      '25000000001000000000000000000000000000000000000011000000170000000000000000000000',
  );
  const tampered = Buffer.from(response);
  tampered[60] ^= 1;
  assert.throws(() => decryptMessage(Cipher.AES_128_GCM, keys.decryptionKey!, parseTransform(tampered)), { code: 'PROTOCOL_ERROR' });
});

test('signatures: HMAC-SHA256, AES-CMAC and AES-GMAC; any modified byte fails verification, and each algorithm refuses the others\' signatures', () => {
  const msg = Buffer.alloc(100);
  msg.write('fe534d42', 0, 'hex');
  msg.writeUInt16LE(64, 4);
  msg.fill(7, 64);
  const key = hex('00112233445566778899aabbccddeeff');
  const algorithms = [SigningAlgorithm.HMAC_SHA256, SigningAlgorithm.AES_CMAC, SigningAlgorithm.AES_GMAC];
  for (const algorithm of algorithms) {
    const m = Buffer.from(msg);
    signMessage(algorithm, key, m);
    assert.ok(verifySignature(algorithm, key, m));
    assert.notDeepEqual(m.subarray(48, 64), Buffer.alloc(16));
    const bad = Buffer.from(m);
    bad[80] ^= 0x40;
    assert.equal(verifySignature(algorithm, key, bad), false);
    for (const other of algorithms.filter((a) => a !== algorithm)) assert.equal(verifySignature(other, key, m), false, `${algorithm} against ${other}`);
  }
});

// MS-SMB2 3.1.4.1: the GMAC nonce is the message id (8 bytes), then 4 bytes whose lowest bit is set in what the
// server sends and the next one in a CANCEL; the signature is GCM's tag over the message, signature field zero.
test('AES-GMAC signatures use the nonce of MS-SMB2 3.1.4.1: message id, a bit for a response, a bit for a CANCEL', () => {
  const key = hex('00112233445566778899aabbccddeeff');
  const message = (command: number, flags: number): Buffer => {
    const m = Buffer.alloc(90, 5);
    m.write('fe534d42', 0, 'hex');
    m.writeUInt16LE(command, 12);
    m.writeUInt32LE(flags, 16);
    m.writeBigUInt64LE(0x0102030405060708n, 24);
    m.fill(0, 48, 64);
    return m;
  };
  const cases: [string, Buffer, number][] = [
    ['a request', message(Command.READ, 0), 0],
    ['a response', message(Command.READ, HeaderFlags.SERVER_TO_REDIR), 1],
    ['a CANCEL', message(Command.CANCEL, 0), 2],
  ];
  for (const [label, m, bits] of cases) {
    const nonce = Buffer.alloc(12);
    nonce.writeBigUInt64LE(0x0102030405060708n, 0);
    nonce.writeUInt32LE(bits, 8);
    const gcm = createCipheriv('aes-128-gcm', key, nonce);
    gcm.setAAD(m);
    gcm.final();
    const signed = Buffer.from(m);
    signMessage(SigningAlgorithm.AES_GMAC, key, signed);
    assert.deepEqual(signed.subarray(48, 64), gcm.getAuthTag(), label);
  }
});
