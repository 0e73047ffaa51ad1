// SMB2 command structures (MS-SMB2 2.2), one module per command family beside this one: request bodies are built as
// Buffers that follow the 64-byte header, response bodies are read through a WireReader over the whole message (SMB2
// offsets count from the header). Here: the request every builder returns, and what the families share.
import { SmbProtocolError } from '../errors.js';
import { type CommandCode, HEADER_SIZE } from '../header.js';
import type { WireReader } from '../wire.js';

export interface SmbRequest {
  command: CommandCode;
  body: Buffer;
  /** Largest payload in either direction, which sets the CreditCharge (MS-SMB2 3.1.5.2). */
  payloadSize?: number;
}

/** Checks the StructureSize of a response body. */
export function expectStructureSize(r: WireReader, expected: number, what: string): void {
  const size = r.u16(HEADER_SIZE);
  if (size !== expected) throw new SmbProtocolError(`${what} response has StructureSize ${size}, expected ${expected}`);
}

/** A fixed-size body (even StructureSize, no variable buffer). */
export function fixedBody(structureSize: number): Buffer {
  const b = Buffer.alloc(structureSize);
  b.writeUInt16LE(structureSize, 0);
  return b;
}
