// LOCK (MS-SMB2 2.2.26, 2.2.27): byte-range locks on an open file.
import { Command } from '../header.js';
import type { SmbRequest } from './request.js';

/** SMB2_LOCK_ELEMENT Flags (MS-SMB2 2.2.26.1). */
export const LockFlags = {
  SHARED: 0x1,
  EXCLUSIVE: 0x2,
  UNLOCK: 0x4,
  /** Refuse at once (STATUS_LOCK_NOT_GRANTED) rather than wait for a conflicting lock to go. */
  FAIL_IMMEDIATELY: 0x10,
} as const;

export interface LockElement {
  offset: bigint;
  length: bigint;
  /** LockFlags bits. */
  flags: number;
}

/**
 * Takes (or releases) byte ranges of the open file `fileId`. A related request of a compound names the file
 * RELATED_FILE_ID. The answer carries nothing but its status.
 */
export function lockRequest(fileId: Buffer, locks: readonly LockElement[]): SmbRequest {
  if (locks.length === 0) throw new RangeError('a LOCK request needs at least one range');
  // StructureSize is 48 whatever the count: the fixed part and one element (MS-SMB2 2.2.26).
  const b = Buffer.alloc(24 + 24 * locks.length);
  b.writeUInt16LE(48, 0);
  b.writeUInt16LE(locks.length, 2);
  fileId.copy(b, 8);
  locks.forEach((lock, i) => {
    const at = 24 + 24 * i;
    b.writeBigUInt64LE(lock.offset, at);
    b.writeBigUInt64LE(lock.length, at + 8);
    b.writeUInt32LE(lock.flags, at + 16);
  });
  return { command: Command.LOCK, body: b };
}
