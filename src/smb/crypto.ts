/**
 * SMB2/3 cryptography: key derivation (SP800-108 counter mode, MS-SMB2 3.1.4.2), message signing
 * (HMAC-SHA256 for 2.x, AES-128-CMAC for 3.x, AES-128-GMAC where 3.1.1 negotiated it, MS-SMB2 3.1.4.1),
 * AES-128-CCM/GCM encryption of transform frames (MS-SMB2 3.1.4.3) and the SHA-512 pre-authentication
 * integrity hash (MS-SMB2 3.2.5.2).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { SmbError, SmbProtocolError } from './errors.js';
import { Command, Dialect, HeaderFlags, SIGNATURE_OFFSET, TRANSFORM_HEADER_SIZE, buildTransformHeader, type TransformHeader } from './header.js';

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

/** Where the SMB2 header keeps what the GMAC nonce is made of. */
const COMMAND_OFFSET = 12;
const FLAGS_OFFSET = 16;
const MESSAGE_ID_OFFSET = 24;

/**
 * AES-128-GMAC (RFC 4543) of an SMB2 message, as 3.1.1 signs where it was negotiated (MS-SMB2 3.1.4.1): AES-GCM with
 * the message as additional data and nothing to encrypt. Unlike CMAC's CBC it makes no output the size of the
 * message, and GCM's hash is the faster on a page-sized READ response. The nonce is the message id, then 4 bytes
 * whose lowest bit says a response (the server signed it) and the next one a CANCEL.
 */
function aesGmac(key: Buffer, message: Buffer): Buffer {
  const nonce = Buffer.alloc(12);
  message.copy(nonce, 0, MESSAGE_ID_OFFSET, MESSAGE_ID_OFFSET + 8);
  const fromServer = (message.readUInt32LE(FLAGS_OFFSET) & HeaderFlags.SERVER_TO_REDIR) !== 0;
  const cancel = message.readUInt16LE(COMMAND_OFFSET) === Command.CANCEL;
  nonce.writeUInt32LE((fromServer ? 1 : 0) | (cancel ? 2 : 0), 8);
  const gcm = createCipheriv('aes-128-gcm', secretKeyOf(key), nonce);
  gcm.setAAD(message);
  gcm.final();
  return gcm.getAuthTag();
}

/** Signing algorithms by their ids in the 3.1.1 signing capabilities (MS-SMB2 2.2.3.1.7). */
export const SigningAlgorithm = { HMAC_SHA256: 0, AES_CMAC: 1, AES_GMAC: 2 } as const;
export type SigningAlgorithmId = (typeof SigningAlgorithm)[keyof typeof SigningAlgorithm];

/** The algorithm a dialect signs with unless 3.1.1's negotiation chose another (MS-SMB2 3.1.4.1). */
export function dialectSigningAlgorithm(dialect: number): SigningAlgorithmId {
  return dialect >= Dialect.SMB300 ? SigningAlgorithm.AES_CMAC : SigningAlgorithm.HMAC_SHA256;
}

/** The 16-byte signature of one SMB2 message (its signature field is treated as zero). */
function computeSignature(algorithm: SigningAlgorithmId, signingKey: Buffer, message: Buffer): Buffer {
  const saved = Buffer.from(message.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16));
  message.fill(0, SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16);
  try {
    switch (algorithm) {
      case SigningAlgorithm.AES_GMAC:
        return aesGmac(signingKey, message);
      case SigningAlgorithm.AES_CMAC:
        return aesCmac(signingKey, message);
      case SigningAlgorithm.HMAC_SHA256:
        return createHmac('sha256', secretKeyOf(signingKey)).update(message).digest().subarray(0, 16);
    }
  } finally {
    saved.copy(message, SIGNATURE_OFFSET);
  }
}

export function signMessage(algorithm: SigningAlgorithmId, signingKey: Buffer, message: Buffer): void {
  computeSignature(algorithm, signingKey, message).copy(message, SIGNATURE_OFFSET);
}

export function verifySignature(algorithm: SigningAlgorithmId, signingKey: Buffer, message: Buffer): boolean {
  const expected = computeSignature(algorithm, signingKey, message);
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
  const c = cipher === Cipher.AES_128_CCM
    ? createCipheriv('aes-128-ccm', secretKeyOf(key), n, { authTagLength: 16 }).setAAD(aad, { plaintextLength: plain.length })
    : createCipheriv('aes-128-gcm', secretKeyOf(key), n).setAAD(aad);
  // CCM and GCM are stream modes: update gives every byte, final none but the tag, so no copy joins the two.
  const ciphertext = c.update(plain);
  c.final();
  c.getAuthTag().copy(header, 4);
  return Buffer.concat([header, ciphertext]);
}

export function decryptMessage(cipher: CipherId, key: Buffer, t: TransformHeader): Buffer {
  const n = t.nonce.subarray(0, nonceLength(cipher));
  try {
    const d = cipher === Cipher.AES_128_CCM
      ? createDecipheriv('aes-128-ccm', secretKeyOf(key), n, { authTagLength: 16 }).setAuthTag(t.signature).setAAD(t.aad, { plaintextLength: t.ciphertext.length })
      : createDecipheriv('aes-128-gcm', secretKeyOf(key), n).setAuthTag(t.signature).setAAD(t.aad);
    // As in encryptMessage: update gives every byte; final only checks the tag (and throws when it is wrong).
    const plain = d.update(t.ciphertext);
    d.final();
    return plain;
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
