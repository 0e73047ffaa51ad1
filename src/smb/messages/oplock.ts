// Oplocks and leases (MS-SMB2 2.2.13 RequestedOplockLevel, 2.2.13.2.8 SMB2_CREATE_REQUEST_LEASE, 2.2.23 and 2.2.24
// OPLOCK_BREAK): what a client asks for with a CREATE to cache a file, the server's notice that another open needs
// it to give the cache up, and the client's acknowledgment. The facade asks for neither; a client that holds one
// (as Office and Explorer do) makes the server hold a conflicting CREATE until it has acknowledged the break.
import { SmbProtocolError } from '../errors.js';
import { Command, HEADER_SIZE } from '../header.js';
import type { WireReader } from '../wire.js';
import type { SmbRequest } from './request.js';

/** RequestedOplockLevel of a CREATE and OplockLevel of its response (MS-SMB2 2.2.13). */
export const OplockLevel = { NONE: 0x00, II: 0x01, EXCLUSIVE: 0x08, BATCH: 0x09, LEASE: 0xff } as const;

/** LeaseState bits (MS-SMB2 2.2.13.2.8): what the holder may cache. */
export const LeaseState = { NONE: 0x0, READ: 0x1, HANDLE: 0x2, WRITE: 0x4 } as const;

export interface LeaseRequest {
  /** The client's 16-byte key of the lease; opens with the same key share it. */
  key: Buffer;
  /** LeaseState bits asked for. */
  state: number;
}

/** Name of the lease create context, in the request and in the response. */
export const LEASE_CONTEXT = Buffer.from('RqLs', 'latin1');

/** SMB2_CREATE_REQUEST_LEASE (version 1, for SMB 2.1 and later): key, state, no flags, no duration. */
export function leaseContextData(lease: LeaseRequest): Buffer {
  if (lease.key.length !== 16) throw new RangeError('a lease key has 16 bytes');
  const b = Buffer.alloc(32);
  lease.key.copy(b, 0);
  b.writeUInt32LE(lease.state, 16);
  return b;
}

/** The LeaseState the server granted, from the data of its RqLs response context. */
export function grantedLeaseState(data: Buffer): number {
  if (data.length < 32) throw new SmbProtocolError(`lease response context of ${data.length} bytes`);
  return data.readUInt32LE(16);
}

/** MessageId of a notification the server sends unasked (MS-SMB2 3.3.4.6, 3.3.4.7). */
export const UNSOLICITED_MESSAGE_ID = 0xffffffffffffffffn;

/** A break notification: an oplock's (by FileId) or a lease's (by key). */
export type BreakNotice =
  | { kind: 'oplock'; fileId: Buffer; level: number }
  | { kind: 'lease'; key: Buffer; from: number; to: number; ackRequired: boolean };

/** SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED (MS-SMB2 2.2.23.2). */
const LEASE_BREAK_ACK_REQUIRED = 0x1;

/** Reads an OPLOCK_BREAK notification: StructureSize 24 for an oplock (2.2.23.1), 44 for a lease (2.2.23.2). */
export function parseBreakNotice(r: WireReader): BreakNotice {
  const b = HEADER_SIZE;
  const size = r.u16(b);
  if (size === 24) return { kind: 'oplock', level: r.u8(b + 2), fileId: Buffer.from(r.bytes(b + 8, 16)) };
  if (size === 44) {
    return { kind: 'lease', ackRequired: (r.u32(b + 4) & LEASE_BREAK_ACK_REQUIRED) !== 0, key: Buffer.from(r.bytes(b + 8, 16)), from: r.u32(b + 24), to: r.u32(b + 28) };
  }
  throw new SmbProtocolError(`OPLOCK_BREAK notification has StructureSize ${size}`);
}

/** Oplock Break Acknowledgment (2.2.24.1): the holder now holds `level` (at most what the notice offered). */
export function oplockBreakAck(fileId: Buffer, level: number): SmbRequest {
  return breakAck(24, (b) => {
    b.writeUInt8(level, 2);
    fileId.copy(b, 8);
  });
}

/** Lease Break Acknowledgment (2.2.24.2): the holder of lease `key` now holds `state`. */
export function leaseBreakAck(key: Buffer, state: number): SmbRequest {
  return breakAck(36, (b) => {
    key.copy(b, 8);
    b.writeUInt32LE(state, 24);
  });
}

/** An OPLOCK_BREAK request of `size` bytes (its StructureSize), filled in by `fill`. */
function breakAck(size: number, fill: (body: Buffer) => void): SmbRequest {
  const b = Buffer.alloc(size);
  b.writeUInt16LE(size, 0);
  fill(b);
  return { command: Command.OPLOCK_BREAK, body: b };
}
