/**
 * Kerberos encryption types on node:crypto primitives: the simplified profile of RFC 3961 with AES
 * (RFC 3962: aes128/aes256-cts-hmac-sha1-96) and AES with HMAC-SHA2 (RFC 8009: aes128-cts-hmac-sha256-128,
 * aes256-cts-hmac-sha384-192). Each type gives string-to-key, key derivation per key usage, encryption with a
 * random confounder and an integrity tag, and keyed checksums. RC4 and DES are left out on purpose: Samba and
 * Windows domains issue AES keys to every account since 2008 functional level.
 */
import { createCipheriv, createDecipheriv, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { KerberosError } from './errors.js';

/** Encryption type numbers (RFC 3961 8, RFC 8009 7). */
const Etype = {
  AES128_CTS_HMAC_SHA1_96: 17,
  AES256_CTS_HMAC_SHA1_96: 18,
  AES128_CTS_HMAC_SHA256_128: 19,
  AES256_CTS_HMAC_SHA384_192: 20,
} as const;

/** A key of an encryption type, as a keytab or the KDC gives it. */
export interface EncryptionKey {
  etype: number;
  value: Buffer;
}

const BLOCK = 16;

/** RFC 3961 5.1 n-fold: copies of the input, each rotated 13 bits further right, added in ones'-complement. */
export function nfold(input: Buffer, outBits: number): Buffer {
  const inBits = input.length * 8;
  let [a, b] = [inBits, outBits];
  while (b) [a, b] = [b, a % b];
  const lcmBits = (inBits * outBits) / a;
  const bit = (j: number): number => (input[j >> 3]! >> (7 - (j & 7))) & 1;
  const mask = (1n << BigInt(outBits)) - 1n;
  let sum = 0n;
  let chunk = 0n;
  for (let i = 0; i < lcmBits; i++) {
    const copy = Math.floor(i / inBits);
    const j = (((i % inBits) - 13 * copy) % inBits + inBits) % inBits;
    chunk = (chunk << 1n) | BigInt(bit(j));
    if ((i + 1) % outBits === 0) {
      sum += chunk;
      chunk = 0n;
    }
  }
  while (sum > mask) sum = (sum & mask) + (sum >> BigInt(outBits));
  return Buffer.from(sum.toString(16).padStart(outBits / 4, '0'), 'hex');
}

/**
 * n-fold of a key usage constant to one AES block, remembered: a few constants serve every message, and n-fold goes
 * bit by bit (it was the acceptor's hottest function, twice per AES operation: bench/negotiate/run.ts).
 */
const foldedConstants = new Map<string, Buffer>();
function foldedConstant(constant: Buffer): Buffer {
  const key = constant.toString('hex');
  let folded = foldedConstants.get(key);
  if (folded === undefined) {
    folded = nfold(constant, BLOCK * 8);
    // Bounded by the usages the protocol has (RFC 4120 7.5.1 lists about thirty, three constants each).
    if (foldedConstants.size < 1024) foldedConstants.set(key, folded);
  }
  return folded;
}

function aesName(key: Buffer, mode: 'cbc' | 'ecb'): string {
  return `aes-${key.length * 8}-${mode}`;
}

/** CBC with ciphertext stealing as Kerberos uses it (RFC 3962 5): the last two blocks always swap. */
export function ctsEncrypt(key: Buffer, iv: Buffer, plain: Buffer): Buffer {
  if (plain.length < BLOCK) throw new KerberosError('INVALID_ARGUMENT', 'CTS needs at least one block of input');
  const padded = Buffer.alloc(Math.ceil(plain.length / BLOCK) * BLOCK);
  plain.copy(padded);
  const c = createCipheriv(aesName(key, 'cbc'), key, iv).setAutoPadding(false);
  const cbc = Buffer.concat([c.update(padded), c.final()]);
  if (cbc.length === BLOCK) return cbc;
  const lastLen = plain.length - (padded.length - BLOCK);
  const n = cbc.length;
  return Buffer.concat([cbc.subarray(0, n - 2 * BLOCK), cbc.subarray(n - BLOCK), cbc.subarray(n - 2 * BLOCK, n - 2 * BLOCK + lastLen)]);
}

export function ctsDecrypt(key: Buffer, iv: Buffer, cipher: Buffer): Buffer {
  if (cipher.length < BLOCK) throw new KerberosError('INTEGRITY', 'CTS ciphertext shorter than one block');
  const cbcDecrypt = (data: Buffer, chain: Buffer): Buffer => {
    const d = createDecipheriv(aesName(key, 'cbc'), key, chain).setAutoPadding(false);
    return Buffer.concat([d.update(data), d.final()]);
  };
  if (cipher.length === BLOCK) return cbcDecrypt(cipher, iv);
  const full = Math.ceil(cipher.length / BLOCK) * BLOCK;
  const lastLen = cipher.length - (full - BLOCK);
  const headLen = full - 2 * BLOCK;
  const head = cipher.subarray(0, headLen);
  const swapped = cipher.subarray(headLen, headLen + BLOCK); // CBC's last block
  const partial = cipher.subarray(headLen + BLOCK);
  const ecb = createDecipheriv(aesName(key, 'ecb'), key, null).setAutoPadding(false);
  const d = Buffer.concat([ecb.update(swapped), ecb.final()]);
  // The second-to-last CBC block: the stolen bytes, then what padding the last plain block with zeros left of it.
  const penultimate = Buffer.concat([partial, d.subarray(lastLen)]);
  const last = Buffer.alloc(lastLen);
  for (let i = 0; i < lastLen; i++) last[i] = d[i]! ^ partial[i]!;
  const chain = headLen > 0 ? head.subarray(headLen - BLOCK) : iv;
  const front = headLen > 0 ? cbcDecrypt(head, iv) : Buffer.alloc(0);
  return Buffer.concat([front, cbcDecrypt(penultimate, chain), last]);
}

function usageConstant(usage: number, kind: number): Buffer {
  const b = Buffer.alloc(5);
  b.writeUInt32BE(usage);
  b[4] = kind;
  return b;
}
const KE = 0xaa;
const KI = 0x55;
const KC = 0x99;

/** What every encryption type offers the protocol layer. */
export interface EncryptionType {
  readonly etype: number;
  readonly name: string;
  readonly keyLength: number;
  /** The checksum type (RFC 3961 8) keyed with this type's keys. */
  readonly checksumType: number;
  /** The PBKDF2 iteration count of string-to-key when the KDC names none (RFC 3962: 4096, RFC 8009: 32768). */
  readonly defaultIterations: number;
  stringToKey(password: string, salt: string, iterations?: number): Buffer;
  encrypt(key: Buffer, usage: number, plain: Buffer, confounder?: Buffer): Buffer;
  /** Throws KerberosError INTEGRITY when the tag does not verify. */
  decrypt(key: Buffer, usage: number, cipher: Buffer): Buffer;
  checksum(key: Buffer, usage: number, data: Buffer): Buffer;
}

function verifyTag(expected: Buffer, got: Buffer, what: string): void {
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) {
    throw new KerberosError('INTEGRITY', `${what}: integrity check failed (wrong key, or the message was altered)`);
  }
}

/** RFC 3962: aes-cts-hmac-sha1-96 on the simplified profile of RFC 3961. */
class AesSha1 implements EncryptionType {
  readonly checksumType: number;
  readonly defaultIterations = 4096;
  constructor(
    readonly etype: number,
    readonly name: string,
    readonly keyLength: number,
  ) {
    this.checksumType = keyLength === 16 ? 15 : 16; // hmac-sha1-96-aes128 / -aes256
  }

  /** RFC 3961 5.1 DK(key, constant): AES-encrypt the n-folded constant in a chain until the key is full. */
  derive(key: Buffer, constant: Buffer): Buffer {
    const out: Buffer[] = [];
    let block = foldedConstant(constant);
    for (let have = 0; have < this.keyLength; have += BLOCK) {
      const c = createCipheriv(aesName(key, 'ecb'), key, null).setAutoPadding(false);
      block = Buffer.concat([c.update(block), c.final()]);
      out.push(block);
    }
    return Buffer.concat(out).subarray(0, this.keyLength);
  }

  stringToKey(password: string, salt: string, iterations = this.defaultIterations): Buffer {
    const tkey = pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, this.keyLength, 'sha1');
    return this.derive(tkey, Buffer.from('kerberos', 'latin1'));
  }

  encrypt(key: Buffer, usage: number, plain: Buffer, confounder: Buffer = randomBytes(BLOCK)): Buffer {
    const data = Buffer.concat([confounder, plain]);
    const c = ctsEncrypt(this.derive(key, usageConstant(usage, KE)), Buffer.alloc(BLOCK), data);
    const h = createHmac('sha1', this.derive(key, usageConstant(usage, KI))).update(data).digest().subarray(0, 12);
    return Buffer.concat([c, h]);
  }

  decrypt(key: Buffer, usage: number, cipher: Buffer): Buffer {
    if (cipher.length < BLOCK + 12) throw new KerberosError('INTEGRITY', `${this.name}: ciphertext too short`);
    const c = cipher.subarray(0, cipher.length - 12);
    const data = ctsDecrypt(this.derive(key, usageConstant(usage, KE)), Buffer.alloc(BLOCK), c);
    const h = createHmac('sha1', this.derive(key, usageConstant(usage, KI))).update(data).digest().subarray(0, 12);
    verifyTag(h, cipher.subarray(cipher.length - 12), this.name);
    return data.subarray(BLOCK);
  }

  checksum(key: Buffer, usage: number, data: Buffer): Buffer {
    return createHmac('sha1', this.derive(key, usageConstant(usage, KC))).update(data).digest().subarray(0, 12);
  }
}

/** RFC 8009: AES-CTS with HMAC-SHA256/384, keys from the SP800-108 counter-mode KDF. */
class AesSha2 implements EncryptionType {
  readonly checksumType: number;
  readonly defaultIterations = 32768;
  private readonly hash: 'sha256' | 'sha384';
  /** Length of the integrity tag and of Ki/Kc, in bytes. */
  private readonly macLength: number;
  constructor(
    readonly etype: number,
    readonly name: string,
    readonly keyLength: number,
  ) {
    this.hash = keyLength === 16 ? 'sha256' : 'sha384';
    this.macLength = keyLength === 16 ? 16 : 24;
    this.checksumType = keyLength === 16 ? 19 : 20;
  }

  /** KDF-HMAC-SHA2(key, label, k) of RFC 8009 3: the first k bits of HMAC(key, 1 | label | 0 | k). */
  kdf(key: Buffer, label: Buffer, bytes: number): Buffer {
    const k = Buffer.alloc(4);
    k.writeUInt32BE(bytes * 8);
    return createHmac(this.hash, key)
      .update(Buffer.concat([Buffer.from([0, 0, 0, 1]), label, Buffer.from([0]), k]))
      .digest()
      .subarray(0, bytes);
  }

  stringToKey(password: string, salt: string, iterations = this.defaultIterations): Buffer {
    const saltp = Buffer.concat([Buffer.from(this.name, 'latin1'), Buffer.from([0]), Buffer.from(salt, 'utf8')]);
    return this.stringToKeyRaw(Buffer.from(password, 'utf8'), saltp, iterations);
  }

  /** The RFC 8009 vectors give the salt as bytes, not as a string. */
  stringToKeyRaw(password: Buffer, saltp: Buffer, iterations: number): Buffer {
    const tkey = pbkdf2Sync(password, saltp, iterations, this.keyLength, this.hash);
    return this.kdf(tkey, Buffer.from('kerberos', 'latin1'), this.keyLength);
  }

  encrypt(key: Buffer, usage: number, plain: Buffer, confounder: Buffer = randomBytes(BLOCK)): Buffer {
    const iv = Buffer.alloc(BLOCK);
    const c = ctsEncrypt(this.kdf(key, usageConstant(usage, KE), this.keyLength), iv, Buffer.concat([confounder, plain]));
    const h = createHmac(this.hash, this.kdf(key, usageConstant(usage, KI), this.macLength))
      .update(Buffer.concat([iv, c]))
      .digest()
      .subarray(0, this.macLength);
    return Buffer.concat([c, h]);
  }

  decrypt(key: Buffer, usage: number, cipher: Buffer): Buffer {
    if (cipher.length < BLOCK + this.macLength) throw new KerberosError('INTEGRITY', `${this.name}: ciphertext too short`);
    const iv = Buffer.alloc(BLOCK);
    const c = cipher.subarray(0, cipher.length - this.macLength);
    const h = createHmac(this.hash, this.kdf(key, usageConstant(usage, KI), this.macLength))
      .update(Buffer.concat([iv, c]))
      .digest()
      .subarray(0, this.macLength);
    verifyTag(h, cipher.subarray(cipher.length - this.macLength), this.name);
    return ctsDecrypt(this.kdf(key, usageConstant(usage, KE), this.keyLength), iv, c).subarray(BLOCK);
  }

  checksum(key: Buffer, usage: number, data: Buffer): Buffer {
    return createHmac(this.hash, this.kdf(key, usageConstant(usage, KC), this.macLength)).update(data).digest().subarray(0, this.macLength);
  }
}

export const aes128Sha1 = new AesSha1(Etype.AES128_CTS_HMAC_SHA1_96, 'aes128-cts-hmac-sha1-96', 16);
export const aes256Sha1 = new AesSha1(Etype.AES256_CTS_HMAC_SHA1_96, 'aes256-cts-hmac-sha1-96', 32);
export const aes128Sha256 = new AesSha2(Etype.AES128_CTS_HMAC_SHA256_128, 'aes128-cts-hmac-sha256-128', 16);
export const aes256Sha384 = new AesSha2(Etype.AES256_CTS_HMAC_SHA384_192, 'aes256-cts-hmac-sha384-192', 32);

const TYPES = new Map<number, EncryptionType>([aes256Sha1, aes128Sha1, aes256Sha384, aes128Sha256].map((t) => [t.etype, t]));

/** The etypes this client asks for, strongest first (the KDC picks the first it has a key for). */
export const SUPPORTED_ETYPES: readonly number[] = [
  Etype.AES256_CTS_HMAC_SHA1_96,
  Etype.AES128_CTS_HMAC_SHA1_96,
  Etype.AES256_CTS_HMAC_SHA384_192,
  Etype.AES128_CTS_HMAC_SHA256_128,
];

export function encryptionType(etype: number): EncryptionType {
  const t = TYPES.get(etype);
  if (!t) throw new KerberosError('UNSUPPORTED_ETYPE', `encryption type ${etype} is not supported (only AES: 17, 18, 19, 20)`);
  return t;
}

/**
 * The iteration counts a KDC may ask string-to-key for (its s2kparams in ETYPE-INFO2): from RFC 3962's default, the
 * count Windows and Samba DCs use, up to MIT krb5's limit, fewer than 2^24. The count comes unprotected in the
 * KDC's first answer, so a forged reply (or a forged DNS answer naming another KDC) could otherwise ask for 2^32
 * (an hour of PBKDF2 here, the thread blocked), for 1 (the password's key as cheap to guess from the logon as can
 * be), or for 0 (a RangeError). 2^24 itself took 14 s for an aes256 key on one core of the loaded test host.
 */
const MIN_ITERATIONS = 4096;
const ITERATIONS_LIMIT = 2 ** 24;

/**
 * The iteration count of a KDC's s2kparams for `type` (RFC 3962 4, RFC 8009 4: four octets, big-endian, 0 meaning
 * 2^32), or the type's default when the KDC names none. A count out of bounds is a PROTOCOL_ERROR naming it.
 */
export function s2kIterations(type: EncryptionType, params: Buffer | undefined): number {
  if (params === undefined) return type.defaultIterations;
  if (params.length !== 4) throw new KerberosError('PROTOCOL_ERROR', `the KDC's string-to-key parameters for ${type.name} are ${params.length} bytes, not 4`);
  const iterations = params.readUInt32BE(0) || 2 ** 32;
  if (iterations < MIN_ITERATIONS || iterations >= ITERATIONS_LIMIT) {
    throw new KerberosError(
      'PROTOCOL_ERROR',
      `the KDC asks for ${iterations} string-to-key iterations of ${type.name}; accepted are ${MIN_ITERATIONS} (RFC 3962's default) to ${ITERATIONS_LIMIT - 1} (MIT krb5's limit): a KDC of the domain does not send this, the reply may be forged`,
    );
  }
  return iterations;
}

/** A fresh random key of the given type (for AP-REQ subkeys): random-to-key is the identity for AES. */
export function randomKey(etype: number): EncryptionKey {
  return { etype, value: randomBytes(encryptionType(etype).keyLength) };
}
