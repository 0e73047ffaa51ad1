// SESSION_SETUP, LOGOFF, TREE_CONNECT, TREE_DISCONNECT and ECHO (MS-SMB2 2.2.5 to 2.2.11, 2.2.28).
import { Command, HEADER_SIZE } from '../header.js';
import { utf16, WireReader } from '../wire.js';
import { CLIENT_SECURITY_MODE } from './negotiate.js';
import { expectStructureSize, fixedBody, type SmbRequest } from './request.js';

export const SessionFlags = { IS_GUEST: 0x1, IS_NULL: 0x2, ENCRYPT_DATA: 0x4 } as const;
export const ShareFlags = { ENCRYPT_DATA: 0x8000 } as const;

export function sessionSetupRequest(securityBuffer: Buffer): SmbRequest {
  const b = Buffer.alloc(24 + securityBuffer.length);
  b.writeUInt16LE(25, 0);
  b[3] = CLIENT_SECURITY_MODE;
  b.writeUInt16LE(HEADER_SIZE + 24, 12);
  b.writeUInt16LE(securityBuffer.length, 14);
  securityBuffer.copy(b, 24);
  return { command: Command.SESSION_SETUP, body: b };
}

export function parseSessionSetupResponse(r: WireReader): { sessionFlags: number; securityBuffer: Buffer } {
  expectStructureSize(r, 9, 'SESSION_SETUP');
  const len = r.u16(HEADER_SIZE + 6);
  return {
    sessionFlags: r.u16(HEADER_SIZE + 2),
    securityBuffer: len ? Buffer.from(r.bytes(r.u16(HEADER_SIZE + 4), len)) : Buffer.alloc(0),
  };
}

/** LOGOFF, TREE_DISCONNECT, ECHO and CANCEL share the 4-byte body. */
export function emptyRequest(
  command: typeof Command.LOGOFF | typeof Command.TREE_DISCONNECT | typeof Command.ECHO | typeof Command.CANCEL,
): SmbRequest {
  return { command, body: fixedBody(4) };
}

export function treeConnectRequest(uncPath: string): SmbRequest {
  const path = utf16(uncPath);
  const b = Buffer.alloc(8 + path.length);
  b.writeUInt16LE(9, 0);
  b.writeUInt16LE(HEADER_SIZE + 8, 4);
  b.writeUInt16LE(path.length, 6);
  path.copy(b, 8);
  return { command: Command.TREE_CONNECT, body: b };
}

export function parseTreeConnectResponse(r: WireReader): { shareType: number; shareFlags: number; maximalAccess: number } {
  expectStructureSize(r, 16, 'TREE_CONNECT');
  return { shareType: r.u8(HEADER_SIZE + 2), shareFlags: r.u32(HEADER_SIZE + 4), maximalAccess: r.u32(HEADER_SIZE + 12) };
}
