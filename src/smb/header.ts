/**
 * The SMB2 packet header and the SMB 3.x transform header (MS-SMB2 2.2.1, 2.2.41), plus the protocol constants
 * shared by the layers above.
 */
import { SmbProtocolError } from './errors.js';
import { WireReader } from './wire.js';

export const Command = {
  NEGOTIATE: 0x00,
  SESSION_SETUP: 0x01,
  LOGOFF: 0x02,
  TREE_CONNECT: 0x03,
  TREE_DISCONNECT: 0x04,
  CREATE: 0x05,
  CLOSE: 0x06,
  FLUSH: 0x07,
  READ: 0x08,
  WRITE: 0x09,
  LOCK: 0x0a,
  IOCTL: 0x0b,
  CANCEL: 0x0c,
  ECHO: 0x0d,
  QUERY_DIRECTORY: 0x0e,
  CHANGE_NOTIFY: 0x0f,
  QUERY_INFO: 0x10,
  SET_INFO: 0x11,
  OPLOCK_BREAK: 0x12,
} as const;
export type CommandCode = (typeof Command)[keyof typeof Command];

export const HeaderFlags = {
  SERVER_TO_REDIR: 0x1,
  ASYNC_COMMAND: 0x2,
  RELATED_OPERATIONS: 0x4,
  SIGNED: 0x8,
} as const;

export const Dialect = {
  SMB202: 0x0202,
  SMB210: 0x0210,
  SMB300: 0x0300,
  SMB302: 0x0302,
  SMB311: 0x0311,
} as const;
export type DialectCode = (typeof Dialect)[keyof typeof Dialect];
export const ALL_DIALECTS: readonly DialectCode[] = [Dialect.SMB202, Dialect.SMB210, Dialect.SMB300, Dialect.SMB302, Dialect.SMB311];
/** Dialects by the names configuration and messages use. */
export const DIALECT_BY_NAME = { '2.0.2': Dialect.SMB202, '2.1': Dialect.SMB210, '3.0': Dialect.SMB300, '3.0.2': Dialect.SMB302, '3.1.1': Dialect.SMB311 } as const;
export type DialectName = keyof typeof DIALECT_BY_NAME;
export const DIALECT_NAMES = Object.keys(DIALECT_BY_NAME) as [DialectName, ...DialectName[]];
export const dialectName = (code: number): string =>
  DIALECT_NAMES.find((n) => DIALECT_BY_NAME[n] === code) ?? `dialect 0x${code.toString(16)}`;

export const HEADER_SIZE = 64;
export const TRANSFORM_HEADER_SIZE = 52;
export const SIGNATURE_OFFSET = 48;
const SMB2_MAGIC = 0x424d53fe; // 0xFE 'S' 'M' 'B' read as LE u32
const TRANSFORM_MAGIC = 0x424d53fd;
const COMPRESSION_MAGIC = 0x424d53fc;

export interface Smb2Header {
  creditCharge: number;
  status: number;
  command: number;
  credits: number;
  flags: number;
  nextCommand: number;
  messageId: bigint;
  asyncId: bigint;
  treeId: number;
  sessionId: bigint;
  signature: Buffer;
}

interface RequestHeaderFields {
  command: CommandCode;
  creditCharge: number;
  creditRequest: number;
  flags: number;
  messageId: bigint;
  treeId: number;
  sessionId: bigint;
  /** With ASYNC_COMMAND in `flags` (a CANCEL of an answered-as-pending request): written instead of ProcessId and TreeId. */
  asyncId?: bigint;
}

export function writeRequestHeader(buf: Buffer, h: RequestHeaderFields): void {
  buf.writeUInt32LE(SMB2_MAGIC, 0);
  buf.writeUInt16LE(HEADER_SIZE, 4);
  buf.writeUInt16LE(h.creditCharge, 6);
  buf.writeUInt32LE(0, 8); // ChannelSequence/Reserved
  buf.writeUInt16LE(h.command, 12);
  buf.writeUInt16LE(h.creditRequest, 14);
  buf.writeUInt32LE(h.flags, 16);
  buf.writeUInt32LE(0, 20); // NextCommand, patched when compounding
  buf.writeBigUInt64LE(h.messageId, 24);
  if (h.flags & HeaderFlags.ASYNC_COMMAND) {
    buf.writeBigUInt64LE(h.asyncId ?? 0n, 32);
  } else {
    buf.writeUInt32LE(0xfeff, 32); // ProcessId (reserved)
    buf.writeUInt32LE(h.treeId, 36);
  }
  buf.writeBigUInt64LE(h.sessionId, 40);
  buf.fill(0, 48, 64);
}

export function parseHeader(r: WireReader): Smb2Header {
  if (r.length < HEADER_SIZE) throw new SmbProtocolError(`SMB2 message of ${r.length} bytes is shorter than its header`);
  if (r.u32(0) !== SMB2_MAGIC) throw new SmbProtocolError('SMB2 message has a bad protocol id');
  if (r.u16(4) !== HEADER_SIZE) throw new SmbProtocolError(`SMB2 header StructureSize ${r.u16(4)} is not 64`);
  const flags = r.u32(16);
  const async = (flags & HeaderFlags.ASYNC_COMMAND) !== 0;
  return {
    creditCharge: r.u16(6),
    status: r.u32(8),
    command: r.u16(12),
    credits: r.u16(14),
    flags,
    nextCommand: r.u32(20),
    messageId: r.u64(24),
    asyncId: async ? r.u64(32) : 0n,
    treeId: async ? 0 : r.u32(36),
    sessionId: r.u64(40),
    signature: r.bytes(48, 16),
  };
}

type FrameKind = 'smb2' | 'transform' | 'compressed' | 'unknown';
export function frameKind(frame: Buffer): FrameKind {
  if (frame.length < 4) return 'unknown';
  const magic = frame.readUInt32LE(0);
  if (magic === SMB2_MAGIC) return 'smb2';
  if (magic === TRANSFORM_MAGIC) return 'transform';
  if (magic === COMPRESSION_MAGIC) return 'compressed';
  return 'unknown';
}

/**
 * Splits a (possibly compounded) plain SMB2 message into its messages. Each part spans from its header to
 * NextCommand (or the end), which is also the range its signature covers.
 */
export function splitCompound(frame: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const r = new WireReader(frame.subarray(offset), 'compounded SMB2 message');
    if (r.length < HEADER_SIZE) throw new SmbProtocolError(`compounded message at offset ${offset} is truncated`);
    const next = r.u32(20);
    if (next === 0) {
      parts.push(frame.subarray(offset));
      return parts;
    }
    if (next < HEADER_SIZE || next % 8 !== 0 || offset + next >= frame.length) {
      throw new SmbProtocolError(`compounded message at offset ${offset} has an invalid NextCommand ${next}`);
    }
    parts.push(frame.subarray(offset, offset + next));
    offset += next;
    if (parts.length > 64) throw new SmbProtocolError('compound chain longer than 64 messages');
  }
}

export interface TransformHeader {
  signature: Buffer;
  nonce: Buffer;
  originalSize: number;
  flags: number;
  sessionId: bigint;
  /** Bytes 20..52, the associated data authenticated by the cipher. */
  aad: Buffer;
  ciphertext: Buffer;
}

export function parseTransform(frame: Buffer): TransformHeader {
  const r = new WireReader(frame, 'SMB2 transform header');
  if (r.length < TRANSFORM_HEADER_SIZE) throw new SmbProtocolError(`transform frame of ${r.length} bytes is truncated`);
  const originalSize = r.u32(36);
  const ciphertext = frame.subarray(TRANSFORM_HEADER_SIZE);
  if (originalSize !== ciphertext.length) {
    throw new SmbProtocolError(`transform header announces ${originalSize} bytes but carries ${ciphertext.length}`);
  }
  return {
    signature: r.bytes(4, 16),
    nonce: r.bytes(20, 16),
    originalSize,
    flags: r.u16(42),
    sessionId: r.u64(44),
    aad: r.bytes(20, 32),
    ciphertext,
  };
}

export function buildTransformHeader(nonce: Buffer, originalSize: number, sessionId: bigint): Buffer {
  const h = Buffer.alloc(TRANSFORM_HEADER_SIZE);
  h.writeUInt32LE(TRANSFORM_MAGIC, 0);
  nonce.copy(h, 20);
  h.writeUInt32LE(originalSize, 36);
  h.writeUInt16LE(1, 42); // Flags: Encrypted
  h.writeBigUInt64LE(sessionId, 44);
  return h;
}
