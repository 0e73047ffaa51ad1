/** Synthetic SMB2 response frames for parser and connection tests. */
import { encodeSid } from '../../../src/windows-security/sid.js';

export function responseHeader(command: number, messageId: bigint, status = 0, extra: { sessionId?: bigint; credits?: number; flags?: number } = {}): Buffer {
  const h = Buffer.alloc(64);
  h.write('fe534d42', 0, 'hex');
  h.writeUInt16LE(64, 4);
  h.writeUInt32LE(status, 8);
  h.writeUInt16LE(command, 12);
  h.writeUInt16LE(extra.credits ?? 1, 14);
  h.writeUInt32LE(0x1 | (extra.flags ?? 0), 16);
  h.writeBigUInt64LE(messageId, 24);
  h.writeBigUInt64LE(extra.sessionId ?? 0n, 40);
  return h;
}

/**
 * A 3.1.1 answer carries the pre-authentication context and, `withCipher`, an AES-128-GCM encryption context; with
 * `signingAlgorithm`, a signing context choosing it too.
 */
export function negotiateResponse(messageId: bigint, dialect = 0x311, withCipher = true, signingAlgorithm?: number): Buffer {
  if (signingAlgorithm !== undefined && !withCipher) throw new Error('a signing context follows the cipher context here');
  const body = Buffer.alloc(signingAlgorithm === undefined ? 64 + 8 + 38 + 2 + 8 + 4 : 128 + 8 + 4);
  body.writeUInt16LE(65, 0);
  body.writeUInt16LE(3, 2);
  body.writeUInt16LE(dialect, 4);
  body.writeUInt16LE((withCipher ? 2 : 1) + (signingAlgorithm === undefined ? 0 : 1), 6);
  body.writeUInt32LE(0x4, 24);
  body.writeUInt32LE(8 << 20, 28);
  body.writeUInt32LE(8 << 20, 32);
  body.writeUInt32LE(8 << 20, 36);
  body.writeUInt32LE(128, 60); // contexts right after the 64-byte body
  let off = 64;
  body.writeUInt16LE(1, off);
  body.writeUInt16LE(38, off + 2);
  body.writeUInt16LE(1, off + 8);
  body.writeUInt16LE(32, off + 10);
  body.writeUInt16LE(1, off + 12);
  off = 64 + 8 + 38 + 2; // aligned to 8 relative to the header
  body.writeUInt16LE(2, off);
  body.writeUInt16LE(4, off + 2);
  body.writeUInt16LE(1, off + 8);
  body.writeUInt16LE(2, off + 10);
  if (signingAlgorithm !== undefined) {
    off = 128; // the cipher context's end, aligned to 8 relative to the header
    body.writeUInt16LE(8, off);
    body.writeUInt16LE(4, off + 2);
    body.writeUInt16LE(1, off + 8);
    body.writeUInt16LE(signingAlgorithm, off + 10);
  }
  return Buffer.concat([responseHeader(0, messageId, 0, { credits: 64 }), body]);
}

export function createResponse(messageId: bigint): Buffer {
  const body = Buffer.alloc(88);
  body.writeUInt16LE(89, 0);
  body.writeBigUInt64LE(133000000000000000n, 8);
  body.writeBigUInt64LE(4096n, 48);
  body.writeUInt32LE(0x20, 56);
  body.fill(0x11, 64, 80);
  return Buffer.concat([responseHeader(5, messageId), body]);
}

/** A CREATE answer that granted a lease: OplockLevel LEASE and an RqLs context with `key` and `state`. */
export function createResponseWithLease(messageId: bigint, key: Buffer, state: number): Buffer {
  const base = createResponse(messageId);
  base.writeUInt8(0xff, 64 + 2);
  const context = Buffer.alloc(24 + 32);
  context.writeUInt16LE(16, 4);
  context.writeUInt16LE(4, 6);
  context.writeUInt16LE(24, 10);
  context.writeUInt32LE(32, 12);
  context.write('RqLs', 16, 'latin1');
  key.copy(context, 24);
  context.writeUInt32LE(state, 24 + 16);
  base.writeUInt32LE(base.length, 64 + 80); // right after the fixed body (which ends 8-byte aligned)
  base.writeUInt32LE(context.length, 64 + 84);
  return Buffer.concat([base, context]);
}

/** An OPLOCK_BREAK notification (MessageId all ones): an oplock's by file id, or a lease's (acknowledgment required). */
export function breakNotice(notice: { fileId: Buffer; level: number } | { key: Buffer; from: number; to: number }): Buffer {
  let body: Buffer;
  if ('fileId' in notice) {
    body = Buffer.alloc(24);
    body.writeUInt16LE(24, 0);
    body.writeUInt8(notice.level, 2);
    notice.fileId.copy(body, 8);
  } else {
    body = Buffer.alloc(44);
    body.writeUInt16LE(44, 0);
    body.writeUInt32LE(1, 4);
    notice.key.copy(body, 8);
    body.writeUInt32LE(notice.from, 24);
    body.writeUInt32LE(notice.to, 28);
  }
  return Buffer.concat([responseHeader(0x12, 0xffffffffffffffffn, 0, { credits: 0 }), body]);
}

export function readResponse(messageId: bigint, data: Buffer): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(17, 0);
  body[2] = 80;
  body.writeUInt32LE(data.length, 4);
  return Buffer.concat([responseHeader(8, messageId), body, data]);
}

export function directoryEntries(names: string[]): Buffer {
  const parts = names.map((n, i) => {
    const name = Buffer.from(n, 'utf16le');
    const e = Buffer.alloc((80 + name.length + 7) & ~7);
    e.writeUInt32LE(i === names.length - 1 ? 0 : e.length, 0);
    e.writeBigUInt64LE(BigInt(100 + i), 40);
    e.writeUInt32LE(name.length, 60);
    e.writeBigUInt64LE(BigInt(1000 + i), 72);
    name.copy(e, 80);
    return e;
  });
  return Buffer.concat(parts);
}

export function outputBufferResponse(command: number, messageId: bigint, data: Buffer): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt16LE(9, 0);
  body.writeUInt16LE(72, 2);
  body.writeUInt32LE(data.length, 4);
  return Buffer.concat([responseHeader(command, messageId), body, data]);
}

/** An ACE: header, access mask and `body` (a SID, or whatever its type carries). */
export function rawAce(type: number, flags: number, mask: number, body: Buffer): Buffer {
  const a = Buffer.alloc(8);
  a[0] = type;
  a[1] = flags;
  a.writeUInt16LE(8 + body.length, 2);
  a.writeUInt32LE(mask, 4);
  return Buffer.concat([a, body]);
}

export function rawAcl(revision: number, aces: readonly Buffer[]): Buffer {
  const aceBytes = Buffer.concat(aces);
  const acl = Buffer.alloc(8);
  acl[0] = revision;
  acl.writeUInt16LE(8 + aceBytes.length, 2);
  acl.writeUInt16LE(aces.length, 4);
  return Buffer.concat([acl, aceBytes]);
}

export function securityDescriptor(): Buffer {
  const owner = encodeSid('S-1-5-32-544');
  const group = encodeSid('S-1-5-21-1-2-3-513');
  const ace = (type: number, flags: number, mask: number, sid: string): Buffer => rawAce(type, flags, mask, encodeSid(sid));
  const acl = rawAcl(2, [ace(1, 0, 0x1, 'S-1-5-21-1-2-3-1108'), ace(0, 3, 0x1f01ff, 'S-1-5-32-544'), ace(0, 0x0b, 0x80000000, 'S-1-5-21-1-2-3-1107'), ace(0, 0, 0x1200a9, 'S-1-1-0')]);
  const head = Buffer.alloc(20);
  head[0] = 1;
  head.writeUInt16LE(0x8004, 2);
  head.writeUInt32LE(20, 4);
  head.writeUInt32LE(20 + owner.length, 8);
  head.writeUInt32LE(20 + owner.length + group.length, 16);
  return Buffer.concat([head, owner, group, acl]);
}

/** Deterministic PRNG (mulberry32) so that fuzz failures can be reproduced. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function closeResponse(messageId: bigint): Buffer {
  const body = Buffer.alloc(60);
  body.writeUInt16LE(60, 0);
  body.writeUInt16LE(1, 2);
  body.writeBigUInt64LE(133000000000000000n, 24);
  body.writeBigUInt64LE(5n, 48);
  return Buffer.concat([responseHeader(6, messageId), body]);
}

/** An IOCTL response carrying `output` for the FSCTL `ctlCode`. */
export function ioctlResponse(messageId: bigint, ctlCode: number, output: Buffer): Buffer {
  const body = Buffer.alloc(48 + output.length);
  body.writeUInt16LE(49, 0);
  body.writeUInt32LE(ctlCode, 4);
  body.writeUInt32LE(64 + 48, 32);
  body.writeUInt32LE(output.length, 36);
  output.copy(body, 48);
  return Buffer.concat([responseHeader(11, messageId), body]);
}

export function validateNegotiateResponse(messageId: bigint): Buffer {
  const output = Buffer.alloc(24);
  output.writeUInt16LE(0x302, 22);
  return ioctlResponse(messageId, 0x00140204, output);
}

/** SRV_REQUEST_RESUME_KEY: a 24-byte key of 0x5a, no context. */
export function resumeKeyResponse(messageId: bigint): Buffer {
  return ioctlResponse(messageId, 0x00140078, Buffer.concat([Buffer.alloc(24, 0x5a), Buffer.alloc(8)]));
}

/** SRV_COPYCHUNK_RESPONSE: 2 chunks, 1,048,576 bytes of the last, 1,500,000 in all. */
export function copyChunkResponse(messageId: bigint): Buffer {
  const output = Buffer.alloc(12);
  output.writeUInt32LE(2, 0);
  output.writeUInt32LE(1_048_576, 4);
  output.writeUInt32LE(1_500_000, 8);
  return ioctlResponse(messageId, 0x001480f2, output);
}

/**
 * Security descriptors as the testbed's Samba (acl_xattr) answered QUERY_INFO SECURITY, set with smbcacls:
 * owner, group and the DACL in Samba's order (owner, group, DACL), each in its self-relative form.
 */
export const sambaSecurityDescriptors: Record<string, Buffer> = {
  /** A page protected for teachers: O:BA G:DU D:P(A;;FA;;;BA)(A;;0x1301bf;;;Lehrer). */
  protectedPage: Buffer.from(
    '010004901400000024000000000000004000000001020000000000052000000020020000010500000000000515000000b7083b8eb382bdb2' +
      'b6b9191d01020000040044000200000000001800ff0100000102000000000005200000002002000000002400bf011300010500000000000515' +
      '000000b7083b8eb382bdb2b6b9191d4e040000',
    'hex',
  ),
  /** The same page asked for DACL_SECURITY_INFORMATION only. */
  protectedPageDacl: Buffer.from(
    '0100049000000000000000000000000014000000040044000200000000001800ff0100000102000000000005200000002002000000002400bf' +
      '011300010500000000000515000000b7083b8eb382bdb2b6b9191d4e040000',
    'hex',
  ),
  /** A folder: a deny (OI|CI), CREATOR OWNER inherit-only, a CI-only allow and an inherited ACE. */
  mixedFolder: Buffer.from(
    '010004901400000024000000000000004000000001020000000000052000000020020000010500000000000515000000b7083b8eb382bdb2' +
      'b6b9191d0102000004007c00040000000103240001000000010500000000000515000000b7083b8eb382bdb2b6b9191d55040000000b1400' +
      '8900120001010000000000030000000000022400bf011300010500000000000515000000b7083b8eb382bdb2b6b9191d4e04000000131800' +
      'ff01000001020000000000052000000020020000',
    'hex',
  ),
  /** A NULL DACL (everyone may do everything): DACL_PRESENT without a DACL. */
  nullDacl: Buffer.from(
    '010004801400000024000000000000000000000001020000000000052000000020020000010500000000000515000000b7083b8eb382bdb2' +
      'b6b9191d01020000',
    'hex',
  ),
};

/** FILE_NOTIFY_INFORMATION entries (action, name), each padded to 4 bytes and chained as a server chains them. */
export function notifyEntries(entries: [number, string][]): Buffer {
  const parts = entries.map(([action, n], i) => {
    const name = Buffer.from(n, 'utf16le');
    const e = Buffer.alloc((12 + name.length + 3) & ~3);
    e.writeUInt32LE(i === entries.length - 1 ? 0 : e.length, 0);
    e.writeUInt32LE(action, 4);
    e.writeUInt32LE(name.length, 8);
    name.copy(e, 12);
    return e;
  });
  return Buffer.concat(parts);
}

/** A seed truncated, replaced by noise, or with bytes overwritten by random or extreme values (lengths, tags). */
export function mutate(seed: Buffer, rnd: () => number): Buffer {
  const b = Buffer.from(seed);
  const kind = Math.floor(rnd() * 5);
  if (kind === 0) return b.subarray(0, Math.floor(rnd() * b.length)); // truncation
  if (kind === 1) return Buffer.from(Array.from({ length: Math.floor(rnd() * 300) }, () => Math.floor(rnd() * 256))); // noise
  const flips = 1 + Math.floor(rnd() * 8);
  for (let i = 0; i < flips && b.length > 0; i++) {
    const at = Math.floor(rnd() * b.length);
    // Lengths and offsets are the interesting targets: write extreme values, not just random bits.
    b[at] = kind === 2 ? Math.floor(rnd() * 256) : [0, 0xff, 0x7f, 0x80, 0x40][Math.floor(rnd() * 5)]!;
  }
  return b;
}
