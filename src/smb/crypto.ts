/**
 * SMB2/3 cryptography: key derivation (SP800-108 counter mode, MS-SMB2 3.1.4.2), message signing
 * (HMAC-SHA256 for 2.x, AES-128-CMAC for 3.x, MS-SMB2 3.1.4.1), AES-128-CCM/GCM encryption of transform
 * frames (MS-SMB2 3.1.4.3) and the SHA-512 pre-authentication integrity hash (MS-SMB2 3.2.5.2).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { SmbError, SmbProtocolError } from './errors.js';
import { Dialect, SIGNATURE_OFFSET, TRANSFORM_HEADER_SIZE, buildTransformHeader, type TransformHeader } from './header.js';

/** SP800-108 KDF in counter mode with HMAC-SHA256, r = 32, L = 128. */
function kdf(key: Buffer, label: Buffer, context: Buffer): Buffer {
  const counter = Buffer.from([0, 0, 0, 1]);
  const length = Buffer.from([0, 0, 0, 128]);
  return createHmac('sha256', key)
    .update(Buffer.concat([counter, label, Buffer.from([0]), context, length]))
    .digest()
    .subarray(0, 16);
}

const cstr = (s: string): Buffer => Buffer.from(`${s}\0`, 'latin1');

interface SessionKeys {
  signingKey: Buffer;
  /** Client-to-server (encrypt) and server-to-client (decrypt) keys; null below 3.0. */
  encryptionKey: Buffer | null;
  decryptionKey: Buffer | null;
}

/** Derives the per-session keys from the authentication session key (first 16 bytes are used). */
export function deriveSessionKeys(dialect: number, sessionKey: Buffer, preauthHash: Buffer | null): SessionKeys {
  const key = Buffer.alloc(16);
  sessionKey.copy(key, 0, 0, 16);
  if (dialect < Dialect.SMB300) return { signingKey: key, encryptionKey: null, decryptionKey: null };
  if (dialect === Dialect.SMB311) {
    if (!preauthHash) throw new SmbError('INVALID_ARGUMENT', 'SMB 3.1.1 key derivation needs the pre-authentication hash');
    return {
      signingKey: kdf(key, cstr('SMBSigningKey'), preauthHash),
      encryptionKey: kdf(key, cstr('SMBC2SCipherKey'), preauthHash),
      decryptionKey: kdf(key, cstr('SMBS2CCipherKey'), preauthHash),
    };
  }
  return {
    signingKey: kdf(key, cstr('SMB2AESCMAC'), cstr('SmbSign')),
    encryptionKey: kdf(key, cstr('SMB2AESCCM'), cstr('ServerIn ')),
    decryptionKey: kdf(key, cstr('SMB2AESCCM'), cstr('ServerOut')),
  };
}

function shiftLeft1(b: Buffer): Buffer {
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) out[i] = ((b[i]! << 1) | (i < 15 ? b[i + 1]! >> 7 : 0)) & 0xff;
  if (b[0]! & 0x80) out[15] ^= 0x87;
  return out;
}

/**
 * Each session key as a node KeyObject, made once: given a Buffer, node makes a KeyObject of it inside every
 * createCipheriv, which cost more than the AES of a page (bench/RESULTS.md, Indexing pools). Session keys are
 * never changed after derivation, so the Buffer's identity names the key.
 */
const secretKeys = new WeakMap<Buffer, KeyObject>();

function secretKeyOf(key: Buffer): KeyObject {
  let secret = secretKeys.get(key);
  if (!secret) {
    secret = createSecretKey(key);
    secretKeys.set(key, secret);
  }
  return secret;
}

/**
 * Random bytes for nonces, drawn from a buffer refilled a few KiB at a time: a call into the random generator per
 * message cost about as much as the message's encryption. Nonces need only be unique per key, which random 11 or
 * 12 bytes are; they are not secret.
 */
const randomPool = { bytes: Buffer.alloc(4096), used: 4096 };

function fillRandom(target: Buffer, length: number): void {
  if (randomPool.used + length > randomPool.bytes.length) {
    randomFillSync(randomPool.bytes);
    randomPool.used = 0;
  }
  randomPool.bytes.copy(target, 0, randomPool.used, randomPool.used + length);
  randomPool.used += length;
}

const ZERO_BLOCK = Buffer.alloc(16);
/** CMAC subkeys per signing key object (session keys live as long as their session). */
const subkeyCache = new WeakMap<Buffer, { k1: Buffer; k2: Buffer }>();

function cmacSubkeys(key: Buffer): { k1: Buffer; k2: Buffer } {
  let keys = subkeyCache.get(key);
  if (!keys) {
    const l = createCipheriv('aes-128-ecb', secretKeyOf(key), null).setAutoPadding(false).update(ZERO_BLOCK);
    const k1 = shiftLeft1(l);
    keys = { k1, k2: shiftLeft1(k1) };
    subkeyCache.set(key, keys);
  }
  return keys;
}

/** AES-128-CMAC (RFC 4493), built on AES-CBC with a zero IV since OpenSSL's CMAC is not exposed by node. */
export function aesCmac(key: Buffer, message: Buffer): Buffer {
  const { k1, k2 } = cmacSubkeys(key);
  const blocks = Math.max(1, Math.ceil(message.length / 16));
  const complete = message.length > 0 && message.length % 16 === 0;
  const padded = Buffer.alloc(blocks * 16);
  message.copy(padded);
  if (!complete) padded[message.length] = 0x80;
  const subkey = complete ? k1 : k2;
  const last = (blocks - 1) * 16;
  for (let i = 0; i < 16; i++) padded[last + i] ^= subkey[i]!;
  const cbc = createCipheriv('aes-128-cbc', secretKeyOf(key), ZERO_BLOCK).setAutoPadding(false);
  const out = cbc.update(padded);
  return out.subarray(out.length - 16);
}

/** The 16-byte signature of one SMB2 message (its signature field is treated as zero). */
function computeSignature(dialect: number, signingKey: Buffer, message: Buffer): Buffer {
  const saved = Buffer.from(message.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16));
  message.fill(0, SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16);
  try {
    if (dialect >= Dialect.SMB300) return aesCmac(signingKey, message);
    return createHmac('sha256', secretKeyOf(signingKey)).update(message).digest().subarray(0, 16);
  } finally {
    saved.copy(message, SIGNATURE_OFFSET);
  }
}

export function signMessage(dialect: number, signingKey: Buffer, message: Buffer): void {
  computeSignature(dialect, signingKey, message).copy(message, SIGNATURE_OFFSET);
}

export function verifySignature(dialect: number, signingKey: Buffer, message: Buffer): boolean {
  const expected = computeSignature(dialect, signingKey, message);
  return expected.equals(message.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16));
}

export const Cipher = { AES_128_CCM: 1, AES_128_GCM: 2 } as const;
export type CipherId = (typeof Cipher)[keyof typeof Cipher];

function nonceLength(cipher: CipherId): number {
  return cipher === Cipher.AES_128_CCM ? 11 : 12;
}

/**
 * Wraps a plain SMB2 message (or compound chain) in a transform header. `nonceField` (16 bytes, of which the
 * cipher uses the first 11 or 12) is random unless given, which only test vectors do.
 */
export function encryptMessage(cipher: CipherId, key: Buffer, sessionId: bigint, plain: Buffer, nonceField?: Buffer): Buffer {
  if (!nonceField) {
    nonceField = Buffer.alloc(16);
    fillRandom(nonceField, nonceLength(cipher));
  }
  const n = nonceField.subarray(0, nonceLength(cipher));
  const header = buildTransformHeader(nonceField, plain.length, sessionId);
  const aad = header.subarray(20, TRANSFORM_HEADER_SIZE);
  const ciphertext =
    cipher === Cipher.AES_128_CCM
      ? (() => {
          const c = createCipheriv('aes-128-ccm', secretKeyOf(key), n, { authTagLength: 16 });
          c.setAAD(aad, { plaintextLength: plain.length });
          const out = Buffer.concat([c.update(plain), c.final()]);
          c.getAuthTag().copy(header, 4);
          return out;
        })()
      : (() => {
          const c = createCipheriv('aes-128-gcm', secretKeyOf(key), n);
          c.setAAD(aad);
          const out = Buffer.concat([c.update(plain), c.final()]);
          c.getAuthTag().copy(header, 4);
          return out;
        })();
  return Buffer.concat([header, ciphertext]);
}

export function decryptMessage(cipher: CipherId, key: Buffer, t: TransformHeader): Buffer {
  const n = t.nonce.subarray(0, nonceLength(cipher));
  try {
    if (cipher === Cipher.AES_128_CCM) {
      const d = createDecipheriv('aes-128-ccm', secretKeyOf(key), n, { authTagLength: 16 });
      d.setAuthTag(t.signature);
      d.setAAD(t.aad, { plaintextLength: t.ciphertext.length });
      return Buffer.concat([d.update(t.ciphertext), d.final()]);
    }
    const d = createDecipheriv('aes-128-gcm', secretKeyOf(key), n);
    d.setAuthTag(t.signature);
    d.setAAD(t.aad);
    return Buffer.concat([d.update(t.ciphertext), d.final()]);
  } catch {
    throw new SmbProtocolError('encrypted SMB3 message failed authentication');
  }
}

/** Running SHA-512 pre-authentication integrity hash: H(i) = SHA512(H(i-1) || message). */
export class PreauthHash {
  private value: Buffer;
  constructor(initial?: Buffer) {
    this.value = initial ? Buffer.from(initial) : Buffer.alloc(64);
  }
  update(message: Buffer): void {
    this.value = createHash('sha512').update(this.value).update(message).digest();
  }
  get digest(): Buffer {
    return this.value;
  }
}
