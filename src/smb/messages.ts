/**
 * SMB2 command structures (MS-SMB2 2.2): request bodies are built as Buffers that follow the 64-byte header,
 * response bodies are read through a WireReader over the whole message (SMB2 offsets count from the header).
 */
import { randomBytes } from 'node:crypto';
import { SmbProtocolError } from './errors.js';
import { Command, Dialect, HEADER_SIZE, type CommandCode, type DialectCode } from './header.js';
import { WireReader, align8, utf16 } from './wire.js';
import { readFileTimes, type FileTimes } from './fscc.js';

export interface SmbRequest {
  command: CommandCode;
  body: Buffer;
  /** Largest payload in either direction, which sets the CreditCharge (MS-SMB2 3.1.5.2). */
  payloadSize?: number;
}

export const Capabilities = { DFS: 0x1, LEASING: 0x2, LARGE_MTU: 0x4, MULTI_CHANNEL: 0x8, ENCRYPTION: 0x40 } as const;
export const SecurityMode = { SIGNING_ENABLED: 0x1, SIGNING_REQUIRED: 0x2 } as const;
/** What this client announces in NEGOTIATE (and repeats in VALIDATE_NEGOTIATE_INFO). */
export const CLIENT_CAPABILITIES = Capabilities.LARGE_MTU | Capabilities.ENCRYPTION;
export const CLIENT_SECURITY_MODE = SecurityMode.SIGNING_ENABLED;
export const SessionFlags = { IS_GUEST: 0x1, IS_NULL: 0x2, ENCRYPT_DATA: 0x4 } as const;
export const ShareFlags = { ENCRYPT_DATA: 0x8000 } as const;
const NegotiateContext = { PREAUTH_INTEGRITY: 1, ENCRYPTION: 2 } as const;
const HASH_SHA512 = 1;

function expectStructureSize(r: WireReader, expected: number, what: string): void {
  const size = r.u16(HEADER_SIZE);
  if (size !== expected) throw new SmbProtocolError(`${what} response has StructureSize ${size}, expected ${expected}`);
}

/** A fixed-size body (even StructureSize, no variable buffer). */
function fixedBody(structureSize: number): Buffer {
  const b = Buffer.alloc(structureSize);
  b.writeUInt16LE(structureSize, 0);
  return b;
}

// ---- NEGOTIATE ----

export function negotiateRequest(dialects: readonly DialectCode[], clientGuid: Buffer, ciphers: readonly number[]): SmbRequest {
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
    if (ciphers.length > 0) {
      const enc = Buffer.alloc(8 + 2 + 2 * ciphers.length);
      enc.writeUInt16LE(NegotiateContext.ENCRYPTION, 0);
      enc.writeUInt16LE(2 + 2 * ciphers.length, 2);
      enc.writeUInt16LE(ciphers.length, 8);
      ciphers.forEach((c, i) => enc.writeUInt16LE(c, 10 + 2 * i));
      contexts.push(enc);
    }
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

export interface NegotiateResponse {
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
        if (data.u16(0) !== 1) throw new SmbProtocolError('server selected more than one cipher');
        res.cipher = data.u16(2);
      }
      off += 8 + len;
    }
    if (!sawPreauth) throw new SmbProtocolError('SMB 3.1.1 negotiate response lacks the pre-authentication context');
  }
  return res;
}

// ---- SESSION_SETUP / LOGOFF / TREE / ECHO ----

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

// ---- CREATE / CLOSE ----

export const Access = {
  FILE_READ_DATA: 0x1,
  FILE_WRITE_DATA: 0x2,
  FILE_APPEND_DATA: 0x4,
  /** On a directory the same two bits mean adding a file and adding a subdirectory (MS-SMB2 2.2.13.1.2). */
  FILE_ADD_FILE: 0x2,
  FILE_ADD_SUBDIRECTORY: 0x4,
  FILE_READ_EA: 0x8,
  FILE_WRITE_EA: 0x10,
  FILE_EXECUTE: 0x20,
  FILE_DELETE_CHILD: 0x40,
  FILE_READ_ATTRIBUTES: 0x80,
  FILE_WRITE_ATTRIBUTES: 0x100,
  DELETE: 0x10000,
  READ_CONTROL: 0x20000,
  WRITE_DAC: 0x40000,
  WRITE_OWNER: 0x80000,
  SYNCHRONIZE: 0x100000,
  MAXIMUM_ALLOWED: 0x2000000,
  GENERIC_ALL: 0x10000000,
  GENERIC_EXECUTE: 0x20000000,
  GENERIC_WRITE: 0x40000000,
  GENERIC_READ: 0x80000000,
} as const;
/** What every open of the file-system facade asks for besides its purpose: the attributes, and SYNCHRONIZE. */
export const READ_ATTRS = Access.FILE_READ_ATTRIBUTES | Access.SYNCHRONIZE;
export const ShareAccess = { READ: 1, WRITE: 2, DELETE: 4, ALL: 7 } as const;
export const Disposition = { SUPERSEDE: 0, OPEN: 1, CREATE: 2, OPEN_IF: 3, OVERWRITE: 4, OVERWRITE_IF: 5 } as const;
export const CreateOptions = {
  DIRECTORY_FILE: 0x1,
  WRITE_THROUGH: 0x2,
  NON_DIRECTORY_FILE: 0x40,
  DELETE_ON_CLOSE: 0x1000,
  OPEN_REPARSE_POINT: 0x200000,
} as const;
export const FileAttributes = { READONLY: 0x1, HIDDEN: 0x2, SYSTEM: 0x4, DIRECTORY: 0x10, ARCHIVE: 0x20, NORMAL: 0x80 } as const;

/** FileId of the preceding CREATE in a related compound (MS-SMB2 3.2.4.1.4). */
export const RELATED_FILE_ID = Buffer.alloc(16, 0xff);

export interface CreateParams {
  /** Share-relative path in backslash form without a leading backslash ('' = share root). */
  name: string;
  desiredAccess: number;
  disposition: number;
  createOptions?: number;
  fileAttributes?: number;
  shareAccess?: number;
  /**
   * SMB2_CREATE_SD_BUFFER (MS-SMB2 2.2.13.2.2): a self-relative security descriptor the server gives a file that
   * this CREATE creates (an existing file keeps its own).
   */
  securityDescriptor?: Buffer;
}

/** Name of the SMB2_CREATE_SD_BUFFER create context. */
const SD_BUFFER_CONTEXT = Buffer.from('SecD', 'latin1');

export function createRequest(p: CreateParams): SmbRequest {
  const name = utf16(p.name);
  const fixedAndName = 56 + Math.max(name.length, 1);
  const context = p.securityDescriptor ? createContext(SD_BUFFER_CONTEXT, p.securityDescriptor) : undefined;
  // Create contexts start 8-byte aligned after the name (offsets count from the SMB2 header, itself aligned).
  const contextAt = align8(fixedAndName);
  const b = Buffer.alloc(context ? contextAt + context.length : fixedAndName);
  b.writeUInt16LE(57, 0);
  b.writeUInt32LE(2, 4); // ImpersonationLevel: Impersonation
  b.writeUInt32LE(p.desiredAccess >>> 0, 24);
  b.writeUInt32LE(p.fileAttributes ?? 0, 28);
  b.writeUInt32LE(p.shareAccess ?? ShareAccess.ALL, 32);
  b.writeUInt32LE(p.disposition, 36);
  b.writeUInt32LE(p.createOptions ?? 0, 40);
  b.writeUInt16LE(HEADER_SIZE + 56, 44);
  b.writeUInt16LE(name.length, 46);
  if (context) {
    b.writeUInt32LE(HEADER_SIZE + contextAt, 48);
    b.writeUInt32LE(context.length, 52);
    context.copy(b, contextAt);
  }
  name.copy(b, 56);
  return { command: Command.CREATE, body: b };
}

/** One SMB2_CREATE_CONTEXT (MS-SMB2 2.2.13.2), the last of its chain: header, name, data at an 8-byte boundary. */
function createContext(name: Buffer, data: Buffer): Buffer {
  const dataAt = align8(16 + name.length);
  const b = Buffer.alloc(dataAt + data.length);
  b.writeUInt16LE(16, 4); // NameOffset
  b.writeUInt16LE(name.length, 6);
  b.writeUInt16LE(dataAt, 10); // DataOffset
  b.writeUInt32LE(data.length, 12);
  name.copy(b, 16);
  data.copy(b, dataAt);
  return b;
}

export interface CreateResponse extends FileTimes {
  createAction: number;
  allocationSize: number;
  endOfFile: number;
  fileAttributes: number;
  fileId: Buffer;
}

export function parseCreateResponse(r: WireReader): CreateResponse {
  expectStructureSize(r, 89, 'CREATE');
  const b = HEADER_SIZE;
  return {
    createAction: r.u32(b + 4),
    ...readFileTimes(r, b + 8),
    allocationSize: r.u64n(b + 40),
    endOfFile: r.u64n(b + 48),
    fileAttributes: r.u32(b + 56),
    fileId: Buffer.from(r.bytes(b + 64, 16)),
  };
}

/** CLOSE; with `postQuery` the response carries the file's times, size and attributes after the close. */
export function closeRequest(fileId: Buffer, postQuery = false): SmbRequest {
  const b = fixedBody(24);
  b.writeUInt16LE(postQuery ? 1 : 0, 2);
  fileId.copy(b, 8);
  return { command: Command.CLOSE, body: b };
}

export interface CloseAttributes extends FileTimes {
  endOfFile: number;
  fileAttributes: number;
}

export function parseCloseResponse(r: WireReader): CloseAttributes {
  expectStructureSize(r, 60, 'CLOSE');
  const b = HEADER_SIZE;
  if ((r.u16(b + 2) & 1) === 0) throw new SmbProtocolError('CLOSE response lacks the requested attributes');
  return { ...readFileTimes(r, b + 8), endOfFile: r.u64n(b + 48), fileAttributes: r.u32(b + 56) };
}

export function flushRequest(fileId: Buffer): SmbRequest {
  const b = fixedBody(24);
  fileId.copy(b, 8);
  return { command: Command.FLUSH, body: b };
}

// ---- IOCTL (MS-SMB2 2.2.31, 2.2.32) ----

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

export interface NegotiateInfo {
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

// ---- READ / WRITE ----

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

// ---- QUERY_DIRECTORY / QUERY_INFO / SET_INFO ----

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

// ---- CHANGE_NOTIFY (MS-SMB2 2.2.35, 2.2.36) ----

/** SMB2_WATCH_TREE: report changes anywhere below the directory, not only among its own entries. */
export const ChangeNotifyFlags = { WATCH_TREE: 0x1 } as const;

/**
 * Asks to be told of the next changes below an open directory (`completionFilter`: FileNotifyChange bits). The
 * answer is a FILE_NOTIFY_INFORMATION chain of at most `outputLength` bytes (parseOutputBuffer, then
 * fscc.ts parseFileNotifyInformation), or STATUS_NOTIFY_ENUM_DIR when more changed than that could carry.
 */
export function changeNotifyRequest(fileId: Buffer, completionFilter: number, watchTree: boolean, outputLength: number): SmbRequest {
  const b = fixedBody(32);
  b.writeUInt16LE(watchTree ? ChangeNotifyFlags.WATCH_TREE : 0, 2);
  b.writeUInt32LE(outputLength, 4);
  fileId.copy(b, 8);
  b.writeUInt32LE(completionFilter >>> 0, 24);
  return { command: Command.CHANGE_NOTIFY, body: b, payloadSize: outputLength };
}
