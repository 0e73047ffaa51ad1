// READ and WRITE (MS-SMB2 2.2.19 to 2.2.22).
import { Command, HEADER_SIZE } from '../header.js';
import { WireReader } from '../wire.js';
import { expectStructureSize, type SmbRequest } from './request.js';

export function readRequest(fileId: Buffer, offset: number, length: number): SmbRequest {
  const b = Buffer.alloc(49);
  b.writeUInt16LE(49, 0);
  b.writeUInt32LE(length, 4);
  b.writeBigUInt64LE(BigInt(offset), 8);
  fileId.copy(b, 16);
  return { command: Command.READ, body: b, payloadSize: length };
}

export function parseReadResponse(r: WireReader): Buffer {
  expectStructureSize(r, 17, 'READ');
  const length = r.u32(HEADER_SIZE + 4);
  if (length === 0) return Buffer.alloc(0);
  return r.bytes(r.u8(HEADER_SIZE + 2), length);
}

export function writeRequest(fileId: Buffer, offset: number, data: Buffer): SmbRequest {
  const b = Buffer.alloc(48 + Math.max(data.length, 1));
  b.writeUInt16LE(49, 0);
  b.writeUInt16LE(HEADER_SIZE + 48, 2);
  b.writeUInt32LE(data.length, 4);
  b.writeBigUInt64LE(BigInt(offset), 8);
  fileId.copy(b, 16);
  data.copy(b, 48);
  return { command: Command.WRITE, body: b, payloadSize: data.length };
}

export function parseWriteResponse(r: WireReader): number {
  expectStructureSize(r, 17, 'WRITE');
  return r.u32(HEADER_SIZE + 4);
}
