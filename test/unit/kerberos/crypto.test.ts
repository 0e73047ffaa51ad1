import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aes128Sha1,
  aes128Sha256,
  aes256Sha1,
  aes256Sha384,
  ctsDecrypt,
  ctsEncrypt,
  encryptionType,
  nfold,
  s2kIterations,
} from '../../../src/kerberos/crypto.js';
import { KerberosError } from '../../../src/kerberos/errors.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// RFC 3961 A.1, n-fold.
test('n-fold matches the RFC 3961 vectors', () => {
  const cases: [string, number, string][] = [
    ['012345', 64, 'be072631276b1955'],
    ['password', 56, '78a07b6caf85fa'],
    ['Rough Consensus, and Running Code', 64, 'bb6ed30870b7f0e0'],
    ['password', 168, '59e4a8ca7c0385c3c37b3f6d2000247cb6e6bd5b3e'],
    ['MASSACHVSETTS INSTITVTE OF TECHNOLOGY', 192, 'db3b0d8f0b061e603282b308a50841229ad798fab9540c1b'],
    ['Q', 168, '518a54a215a8452a518a54a215a8452a518a54a215'],
    ['ba', 168, 'fb25d531ae8974499f52fd92ea9857c4ba24cf297e'],
    ['kerberos', 64, '6b65726265726f73'],
    ['kerberos', 128, '6b65726265726f737b9b5b2b93132b93'],
    ['kerberos', 256, '6b65726265726f737b9b5b2b93132b935c9bdcdad95c9899c4cae4dee6d6cae4'],
  ];
  for (const [input, bits, expected] of cases) {
    assert.equal(nfold(Buffer.from(input, 'latin1'), bits).toString('hex'), expected, `${bits}-fold("${input}")`);
  }
});

// RFC 3962 Appendix B, string-to-key (PBKDF2-HMAC-SHA1, then DK with "kerberos").
test('AES string-to-key matches the RFC 3962 vectors', () => {
  const cases: [string, string, number, string, string][] = [
    ['password', 'ATHENA.MIT.EDUraeburn', 1, '42263c6e89f4fc28b8df68ee09799f15', 'fe697b52bc0d3ce14432ba036a92e65bbb52280990a2fa27883998d72af30161'],
    ['password', 'ATHENA.MIT.EDUraeburn', 2, 'c651bf29e2300ac27fa469d693bdda13', 'a2e16d16b36069c135d5e9d2e25f896102685618b95914b467c67622225824ff'],
    ['password', 'ATHENA.MIT.EDUraeburn', 1200, '4c01cd46d632d01e6dbe230a01ed642a', '55a6ac740ad17b4846941051e1e8b0a7548d93b0ab30a8bc3ff16280382b8c2a'],
    ['X'.repeat(64), 'pass phrase equals block size', 1200, '59d1bb789a828b1aa54ef9c2883f69ed', '89adee3608db8bc71f1bfbfe459486b05618b70cbae22092534e56c553ba4b34'],
    ['X'.repeat(65), 'pass phrase exceeds block size', 1200, 'cb8005dc5f90179a7f02104c0018751d', 'd78c5c9cb872a8c9dad4697f0bb5b2d21496c82beb2caeda2112fceea057401b'],
    ['\u{1d11e}', 'EXAMPLE.COMpianist', 50, 'f149c1f2e154a73452d43e7fe62a56e5', '4b6d9839f84406df1f09cc166db4b83c571848b784a3d6bdc346589a3e393f9e'],
  ];
  for (const [password, salt, n, k128, k256] of cases) {
    assert.equal(aes128Sha1.stringToKey(password, salt, n).toString('hex'), k128, `aes128 ${salt} ${n}`);
    assert.equal(aes256Sha1.stringToKey(password, salt, n).toString('hex'), k256, `aes256 ${salt} ${n}`);
  }
});

test('the KDC\'s string-to-key iteration count is taken from 4096 (RFC 3962) to below 2^24 (MIT krb5), else refused naming it', () => {
  const params = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  for (const n of [4096, 32768, 2 ** 24 - 1]) assert.equal(s2kIterations(aes256Sha1, params(n)), n);
  assert.equal(s2kIterations(aes256Sha1, undefined), 4096);
  assert.equal(s2kIterations(aes256Sha384, undefined), 32768);
  const refused = (text: RegExp) => (e: unknown) => e instanceof KerberosError && e.code === 'PROTOCOL_ERROR' && text.test(e.message);
  for (const n of [1, 4095, 2 ** 24, 2 ** 32 - 1]) {
    assert.throws(() => s2kIterations(aes128Sha256, params(n)), refused(new RegExp(`asks for ${n} string-to-key iterations of aes128-cts-hmac-sha256-128`)));
  }
  // Zero stands for 2^32 (RFC 3962 4).
  assert.throws(() => s2kIterations(aes256Sha1, params(0)), refused(/asks for 4294967296 string-to-key iterations/));
  assert.throws(() => s2kIterations(aes256Sha1, Buffer.from([0, 16, 0])), refused(/are 3 bytes, not 4/));
});

// RFC 3962 Appendix B, CBC with ciphertext stealing under the key "chicken teriyaki" and a zero IV.
test('CTS matches the RFC 3962 vectors in both directions', () => {
  const key = Buffer.from('chicken teriyaki', 'latin1');
  const iv = Buffer.alloc(16);
  const text = Buffer.from("I would like the General Gau's Chicken, please, and wonton soup.", 'latin1');
  const cases: [number, string][] = [
    [17, 'c6353568f2bf8cb4d8a580362da7ff7f97'],
    [31, 'fc00783e0efdb2c1d445d4c8eff7ed2297687268d6ecccc0c07b25e25ecfe5'],
    [32, '39312523a78662d5be7fcbcc98ebf5a897687268d6ecccc0c07b25e25ecfe584'],
    [47, '97687268d6ecccc0c07b25e25ecfe584b3fffd940c16a18c1b5549d2f838029e39312523a78662d5be7fcbcc98ebf5'],
    [48, '97687268d6ecccc0c07b25e25ecfe5849dad8bbb96c4cdc03bc103e1a194bbd839312523a78662d5be7fcbcc98ebf5a8'],
    [64, '97687268d6ecccc0c07b25e25ecfe58439312523a78662d5be7fcbcc98ebf5a84807efe836ee89a526730dbc2f7bc8409dad8bbb96c4cdc03bc103e1a194bbd8'],
  ];
  for (const [length, expected] of cases) {
    const plain = text.subarray(0, length);
    const cipher = ctsEncrypt(key, iv, plain);
    assert.equal(cipher.toString('hex'), expected, `encrypt ${length} bytes`);
    assert.deepEqual(ctsDecrypt(key, iv, cipher), plain, `decrypt ${length} bytes`);
  }
});

// RFC 8009 Appendix A.
const rfc8009 = [
  {
    type: aes128Sha256,
    baseKey: '3705d96080c17728a0e800eab6e0d23c',
    kc: 'b31a018a48f54776f403e9a396325dc3',
    stringToKey: '089bca48b105ea6ea77ca5d2f39dc5e7',
    checksum: 'd78367186643d67b411cba9139fc1dee',
    encryptions: [
      ['', '7e5895eaf2672435bad817f545a37148', 'ef85fb890bb8472f4dab20394dca781dad877eda39d50c870c0d5a0a8e48c718'],
      ['000102030405', '7bca285e2fd4130fb55b1a5c83bc5b24', '84d7f30754ed987bab0bf3506beb09cfb55402cef7e6877ce99e247e52d16ed4421dfdf8976c'],
      ['000102030405060708090a0b0c0d0e0f', '56ab21713ff62c0a1457200f6fa9948f', '3517d640f50ddc8ad3628722b3569d2ae07493fa8263254080ea65c1008e8fc295fb4852e7d83e1e7c48c37eebe6b0d3'],
      ['000102030405060708090a0b0c0d0e0f1011121314', 'a7a4e29a4728ce10664fb64e49ad3fac', '720f73b18d9859cd6ccb4346115cd336c70f58edc0c4437c5573544c31c813bce1e6d072c186b39a413c2f92ca9b8334a287ffcbfc'],
    ],
  },
  {
    type: aes256Sha384,
    baseKey: '6d404d37faf79f9df0d33568d320669800eb4836472ea8a026d16b7182460c52',
    kc: 'ef5718be86cc84963d8bbb5031e9f5c4ba41f28faf69e73d',
    stringToKey: '45bd806dbf6a833a9cffc1c94589a222367a79bc21c413718906e9f578a78467',
    checksum: '45ee791567eefca37f4ac1e0222de80d43c3bfa06699672a',
    encryptions: [
      ['', 'f764e9fa15c276478b2c7d0c4e5f58e4', '41f53fa5bfe7026d91faf9be959195a058707273a96a40f0a01960621ac612748b9bbfbe7eb4ce3c'],
      ['000102030405', 'b80d3251c1f6471494256ffe712d0b9a', '4ed7b37c2bcac8f74f23c1cf07e62bc7b75fb3f637b9f559c7f664f69eab7b6092237526ea0d1f61cb20d69d10f2'],
      ['000102030405060708090a0b0c0d0e0f', '53bf8a0d105265d4e276428624ce5e63', 'bc47ffec7998eb91e8115cf8d19dac4bbbe2e163e87dd37f49beca92027764f68cf51f14d798c2273f35df574d1f932e40c4ff255b36a266'],
      ['000102030405060708090a0b0c0d0e0f1011121314', '763e65367e864f02f55153c7e3b58af1', '40013e2df58e8751957d2878bcd2d6fe101ccfd556cb1eae79db3c3ee86429f2b2a602ac86fef6ecb647d6295fae077a1feb517508d2c16b4192e01f62'],
    ],
  },
];

test('RFC 8009 string-to-key, checksums and encryptions match Appendix A', () => {
  const salt = Buffer.concat([hex('10df9dd783e5bc8acea1730e74355f61'), Buffer.from('ATHENA.MIT.EDUraeburn', 'latin1')]);
  for (const v of rfc8009) {
    const saltp = Buffer.concat([Buffer.from(v.type.name, 'latin1'), Buffer.from([0]), salt]);
    assert.equal(v.type.stringToKeyRaw(Buffer.from('password'), saltp, 32768).toString('hex'), v.stringToKey, `${v.type.name} string-to-key`);
    const plain = hex('000102030405060708090a0b0c0d0e0f1011121314');
    // The Appendix A checksum is keyed with Kc of usage 2 derived from the base key.
    assert.equal(v.type.checksum(hex(v.baseKey), 2, plain).toString('hex'), v.checksum, `${v.type.name} checksum`);
    assert.equal(v.type.kdf(hex(v.baseKey), hex('0000000299'), v.kc.length / 2).toString('hex'), v.kc, `${v.type.name} Kc`);
    for (const [p, confounder, expected] of v.encryptions) {
      const cipher = v.type.encrypt(hex(v.baseKey), 2, hex(p!), hex(confounder!));
      assert.equal(cipher.toString('hex'), expected, `${v.type.name} encrypt ${p!.length / 2} bytes`);
      assert.deepEqual(v.type.decrypt(hex(v.baseKey), 2, cipher), hex(p!));
    }
  }
});

test('every type decrypts what it encrypted and refuses a flipped bit, a wrong usage and a truncated message', () => {
  for (const type of [aes128Sha1, aes256Sha1, aes128Sha256, aes256Sha384]) {
    const key = type.stringToKey('Geheim123!', 'EDU.TESTcarla');
    for (const length of [0, 1, 15, 16, 17, 100]) {
      const plain = Buffer.alloc(length, 0x5a);
      const cipher = type.encrypt(key, 7, plain);
      assert.deepEqual(type.decrypt(key, 7, cipher), plain);
      const flipped = Buffer.from(cipher);
      flipped[3]! ^= 1;
      assert.throws(() => type.decrypt(key, 7, flipped), (e: unknown) => e instanceof KerberosError && e.code === 'INTEGRITY');
      assert.throws(() => type.decrypt(key, 8, cipher), (e: unknown) => e instanceof KerberosError && e.code === 'INTEGRITY');
      assert.throws(() => type.decrypt(key, 7, cipher.subarray(0, 10)), (e: unknown) => e instanceof KerberosError && e.code === 'INTEGRITY');
    }
  }
});

test('an unsupported encryption type is named in the error', () => {
  assert.throws(() => encryptionType(23), /encryption type 23 is not supported/);
});
