// QUERY_DIRECTORY, QUERY_INFO and SET_INFO (MS-SMB2 2.2.33, 2.2.34, 2.2.37 to 2.2.40); the information
// classes themselves are in ../fscc.ts.
import { Command, HEADER_SIZE } from '../header.js';
import { utf16, WireReader } from '../wire.js';
import { expectStructureSize, type SmbRequest } from './request.js';

export const QueryDirectoryFlags = { RESTART_SCANS: 0x1, RETURN_SINGLE_ENTRY: 0x2, INDEX_SPECIFIED: 0x4, REOPEN: 0x10 } as const;

export function queryDirectoryRequest(fileId: Buffer, infoClass: number, pattern: string, flags: number, outputLength: number): SmbRequest {
  const name = utf16(pattern);
  const b = Buffer.alloc(32 + Math.max(name.length, 1));
  b.writeUInt16LE(33, 0);
  b[2] = infoClass;
  b[3] = flags;
  fileId.copy(b, 8);
  b.writeUInt16LE(HEADER_SIZE + 32, 24);
  b.writeUInt16LE(name.length, 26);
  b.writeUInt32LE(outputLength, 28);
  name.copy(b, 32);
  return { command: Command.QUERY_DIRECTORY, body: b, payloadSize: outputLength };
}

/** QUERY_DIRECTORY, QUERY_INFO and CHANGE_NOTIFY responses: StructureSize 9, u16 offset, u32 length. */
export function parseOutputBuffer(r: WireReader, what: string): Buffer {
  expectStructureSize(r, 9, what);
  const length = r.u32(HEADER_SIZE + 4);
  if (length === 0) return Buffer.alloc(0);
  return r.bytes(r.u16(HEADER_SIZE + 2), length);
}

export const InfoType = { FILE: 1, FILESYSTEM: 2, SECURITY: 3 } as const;
export const SecurityInformation = { OWNER: 0x1, GROUP: 0x2, DACL: 0x4, SACL: 0x8 } as const;

export function queryInfoRequest(fileId: Buffer, infoType: number, infoClass: number, outputLength: number, additional = 0): SmbRequest {
  const b = Buffer.alloc(41);
  b.writeUInt16LE(41, 0);
  b[2] = infoType;
  b[3] = infoClass;
  b.writeUInt32LE(outputLength, 4);
  b.writeUInt32LE(additional, 16);
  fileId.copy(b, 24);
  return { command: Command.QUERY_INFO, body: b, payloadSize: outputLength };
}

export function setInfoRequest(fileId: Buffer, infoType: number, infoClass: number, data: Buffer, additional = 0): SmbRequest {
  const b = Buffer.alloc(32 + Math.max(data.length, 1));
  b.writeUInt16LE(33, 0);
  b[2] = infoType;
  b[3] = infoClass;
  b.writeUInt32LE(data.length, 4);
  b.writeUInt16LE(HEADER_SIZE + 32, 8);
  b.writeUInt32LE(additional, 12);
  fileId.copy(b, 16);
  data.copy(b, 32);
  return { command: Command.SET_INFO, body: b, payloadSize: data.length };
}
