// IOCTL (MS-SMB2 2.2.31, 2.2.32): the FSCTLs this client sends, VALIDATE_NEGOTIATE_INFO and the server-side copy.
import { Command, HEADER_SIZE } from '../header.js';
import { WireReader } from '../wire.js';
import { RELATED_FILE_ID } from './create.js';
import { expectStructureSize, type SmbRequest } from './request.js';

const FSCTL_VALIDATE_NEGOTIATE_INFO = 0x00140204;
const FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078;
const FSCTL_SRV_COPYCHUNK_WRITE = 0x001480f2;
const IOCTL_IS_FSCTL = 0x1;

/** An FSCTL on `fileId` with `input`, answered with at most `maxOutput` bytes. */
function fsctlRequest(fileId: Buffer, ctlCode: number, input: Buffer, maxOutput: number): SmbRequest {
  const b = Buffer.alloc(56 + input.length);
  b.writeUInt16LE(57, 0);
  b.writeUInt32LE(ctlCode, 4);
  fileId.copy(b, 8);
  b.writeUInt32LE(HEADER_SIZE + 56, 24); // InputOffset
  b.writeUInt32LE(input.length, 28);
  b.writeUInt32LE(maxOutput, 44); // MaxOutputResponse
  b.writeUInt32LE(IOCTL_IS_FSCTL, 48);
  input.copy(b, 56);
  return { command: Command.IOCTL, body: b };
}

/** The output buffer of an IOCTL response. */
function ioctlOutput(r: WireReader, what: string): WireReader {
  expectStructureSize(r, 49, 'IOCTL');
  return r.sub(r.u32(HEADER_SIZE + 32), r.u32(HEADER_SIZE + 36), what);
}

// FSCTL_VALIDATE_NEGOTIATE_INFO (2.2.31.4, 3.2.5.14.12)

interface NegotiateInfo {
  capabilities: number;
  guid: Buffer;
  securityMode: number;
}

export function validateNegotiateRequest(client: NegotiateInfo, dialects: readonly number[]): SmbRequest {
  const input = Buffer.alloc(24 + 2 * dialects.length);
  input.writeUInt32LE(client.capabilities, 0);
  client.guid.copy(input, 4);
  input.writeUInt16LE(client.securityMode, 20);
  input.writeUInt16LE(dialects.length, 22);
  dialects.forEach((d, i) => input.writeUInt16LE(d, 24 + 2 * i));
  // Not about a file: the FileId is all ones (MS-SMB2 3.2.5.14.12).
  return fsctlRequest(RELATED_FILE_ID, FSCTL_VALIDATE_NEGOTIATE_INFO, input, 24);
}

export function parseValidateNegotiateResponse(r: WireReader): NegotiateInfo & { dialect: number } {
  const out = ioctlOutput(r, 'VALIDATE_NEGOTIATE_INFO output');
  return { capabilities: out.u32(0), guid: Buffer.from(out.bytes(4, 16)), securityMode: out.u16(20), dialect: out.u16(22) };
}

// FSCTL_SRV_REQUEST_RESUME_KEY and FSCTL_SRV_COPYCHUNK_WRITE (2.2.31.1, 2.2.32.1, 2.2.32.3, 3.3.5.15.6): the
// server copies bytes of one open file into another itself; the source is named by its resume key.

/** Length of a resume key (SRV_REQUEST_RESUME_KEY). */
const RESUME_KEY_SIZE = 24;

/** Asks for the resume key of the open file `fileId`, the name of a copy's source. */
export function resumeKeyRequest(fileId: Buffer): SmbRequest {
  return fsctlRequest(fileId, FSCTL_SRV_REQUEST_RESUME_KEY, Buffer.alloc(0), 32);
}

export function parseResumeKeyResponse(r: WireReader): Buffer {
  return Buffer.from(ioctlOutput(r, 'SRV_REQUEST_RESUME_KEY output').bytes(0, RESUME_KEY_SIZE));
}

/** One range of a server-side copy. */
export interface CopyChunk {
  sourceOffset: number;
  targetOffset: number;
  length: number;
}

/** Copies `chunks` of the file named by `resumeKey` into the open file `fileId` (opened with FILE_WRITE_DATA). */
export function copyChunkWriteRequest(fileId: Buffer, resumeKey: Buffer, chunks: readonly CopyChunk[]): SmbRequest {
  const input = Buffer.alloc(32 + 24 * chunks.length);
  resumeKey.copy(input, 0, 0, RESUME_KEY_SIZE);
  input.writeUInt32LE(chunks.length, 24);
  chunks.forEach((c, i) => {
    input.writeBigUInt64LE(BigInt(c.sourceOffset), 32 + 24 * i);
    input.writeBigUInt64LE(BigInt(c.targetOffset), 40 + 24 * i);
    input.writeUInt32LE(c.length, 48 + 24 * i);
  });
  return fsctlRequest(fileId, FSCTL_SRV_COPYCHUNK_WRITE, input, 12);
}

/** SRV_COPYCHUNK_RESPONSE after a success: how many bytes the server copied. */
export function parseCopyChunkResponse(r: WireReader): number {
  return ioctlOutput(r, 'SRV_COPYCHUNK_RESPONSE').u32(8);
}
