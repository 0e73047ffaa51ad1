// NEGOTIATE (MS-SMB2 2.2.3, 2.2.4): the dialect, capabilities and security mode both ends agree on, with
// the SMB 3.1.1 negotiate contexts (pre-authentication integrity, ciphers, signing algorithms).
import { randomBytes } from 'node:crypto';
import { SmbProtocolError } from '../errors.js';
import { Command, Dialect, type DialectCode, HEADER_SIZE } from '../header.js';
import { align8, WireReader } from '../wire.js';
import { expectStructureSize, type SmbRequest } from './request.js';

export const Capabilities = { DFS: 0x1, LEASING: 0x2, LARGE_MTU: 0x4, MULTI_CHANNEL: 0x8, ENCRYPTION: 0x40 } as const;
export const SecurityMode = { SIGNING_ENABLED: 0x1, SIGNING_REQUIRED: 0x2 } as const;
/** What this client announces in NEGOTIATE (and repeats in VALIDATE_NEGOTIATE_INFO). */
export const CLIENT_CAPABILITIES = Capabilities.LARGE_MTU | Capabilities.ENCRYPTION;
export const CLIENT_SECURITY_MODE = SecurityMode.SIGNING_ENABLED;
const NegotiateContext = { PREAUTH_INTEGRITY: 1, ENCRYPTION: 2, SIGNING: 8 } as const;
const HASH_SHA512 = 1;

/** A negotiate context that lists 16-bit algorithm ids, most preferred first (ciphers, signing algorithms). */
function algorithmsContext(type: number, ids: readonly number[]): Buffer {
  const context = Buffer.alloc(8 + 2 + 2 * ids.length);
  context.writeUInt16LE(type, 0);
  context.writeUInt16LE(2 + 2 * ids.length, 2);
  context.writeUInt16LE(ids.length, 8);
  ids.forEach((id, i) => context.writeUInt16LE(id, 10 + 2 * i));
  return context;
}

/** The one algorithm a server's negotiate context chose (it may name only one). */
function chosenAlgorithm(data: WireReader, what: string): number {
  if (data.u16(0) !== 1) throw new SmbProtocolError(`server selected more than one ${what}`);
  return data.u16(2);
}

/** `ciphers` and `signingAlgorithms` (ids, most preferred first) are offered in 3.1.1's contexts, when 3.1.1 is offered. */
export function negotiateRequest(dialects: readonly DialectCode[], clientGuid: Buffer, ciphers: readonly number[], signingAlgorithms: readonly number[]): SmbRequest {
  const fixed = 36;
  const dialectBytes = dialects.length * 2;
  const with311 = dialects.includes(Dialect.SMB311);
  const contexts: Buffer[] = [];
  if (with311) {
    const preauth = Buffer.alloc(8 + 38);
    preauth.writeUInt16LE(NegotiateContext.PREAUTH_INTEGRITY, 0);
    preauth.writeUInt16LE(38, 2);
    preauth.writeUInt16LE(1, 8);
    preauth.writeUInt16LE(32, 10);
    preauth.writeUInt16LE(HASH_SHA512, 12);
    randomBytes(32).copy(preauth, 14);
    contexts.push(preauth);
    if (ciphers.length > 0) contexts.push(algorithmsContext(NegotiateContext.ENCRYPTION, ciphers));
    if (signingAlgorithms.length > 0) contexts.push(algorithmsContext(NegotiateContext.SIGNING, signingAlgorithms));
  }
  const contextStart = align8(HEADER_SIZE + fixed + dialectBytes) - HEADER_SIZE;
  let size = with311 ? contextStart : fixed + dialectBytes;
  const contextOffsets: number[] = [];
  for (const c of contexts) {
    size = align8(size);
    contextOffsets.push(size);
    size += c.length;
  }
  const b = Buffer.alloc(size);
  b.writeUInt16LE(36, 0);
  b.writeUInt16LE(dialects.length, 2);
  b.writeUInt16LE(CLIENT_SECURITY_MODE, 4);
  b.writeUInt32LE(CLIENT_CAPABILITIES, 8);
  clientGuid.copy(b, 12);
  if (with311) {
    b.writeUInt32LE(HEADER_SIZE + contextStart, 28);
    b.writeUInt16LE(contexts.length, 32);
  }
  dialects.forEach((d, i) => b.writeUInt16LE(d, fixed + 2 * i));
  contexts.forEach((c, i) => c.copy(b, contextOffsets[i]!));
  return { command: Command.NEGOTIATE, body: b };
}

interface NegotiateResponse {
  securityMode: number;
  dialect: number;
  serverGuid: Buffer;
  capabilities: number;
  maxTransactSize: number;
  maxReadSize: number;
  maxWriteSize: number;
  securityBuffer: Buffer;
  /** Cipher chosen in the 3.1.1 encryption context (0 = none). */
  cipher: number;
  /** Signing algorithm chosen in the 3.1.1 signing context; undefined when the server sent none (its dialect's). */
  signingAlgorithm?: number;
}

export function parseNegotiateResponse(r: WireReader): NegotiateResponse {
  expectStructureSize(r, 65, 'NEGOTIATE');
  const b = HEADER_SIZE;
  const dialect = r.u16(b + 4);
  const secOffset = r.u16(b + 56);
  const secLength = r.u16(b + 58);
  const res: NegotiateResponse = {
    securityMode: r.u16(b + 2),
    dialect,
    serverGuid: Buffer.from(r.bytes(b + 8, 16)),
    capabilities: r.u32(b + 24),
    maxTransactSize: r.u32(b + 28),
    maxReadSize: r.u32(b + 32),
    maxWriteSize: r.u32(b + 36),
    securityBuffer: secLength ? Buffer.from(r.bytes(secOffset, secLength)) : Buffer.alloc(0),
    cipher: 0,
  };
  if (dialect === Dialect.SMB311) {
    const count = r.u16(b + 6);
    let off = r.u32(b + 60);
    let sawPreauth = false;
    for (let i = 0; i < count; i++) {
      off = align8(off);
      const type = r.u16(off);
      const len = r.u16(off + 2);
      const data = r.sub(off + 8, len, 'negotiate context');
      if (type === NegotiateContext.PREAUTH_INTEGRITY) {
        if (data.u16(0) !== 1 || data.u16(4) !== HASH_SHA512) throw new SmbProtocolError('server did not select SHA-512 pre-authentication integrity');
        sawPreauth = true;
      } else if (type === NegotiateContext.ENCRYPTION) {
        res.cipher = chosenAlgorithm(data, 'cipher');
      } else if (type === NegotiateContext.SIGNING) {
        res.signingAlgorithm = chosenAlgorithm(data, 'signing algorithm');
      }
      off += 8 + len;
    }
    if (!sawPreauth) throw new SmbProtocolError('SMB 3.1.1 negotiate response lacks the pre-authentication context');
  }
  return res;
}
