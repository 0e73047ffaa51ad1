// CREATE, CLOSE and FLUSH (MS-SMB2 2.2.13 to 2.2.18): opening a file or folder, with its access, share access,
// disposition and options, and the file id every later command names.
import { SmbProtocolError } from '../errors.js';
import { type FileTimes, readFileTimes } from '../fscc.js';
import { Command, HEADER_SIZE } from '../header.js';
import { align8, utf16, WireReader } from '../wire.js';
import { grantedLeaseState, LEASE_CONTEXT, leaseContextData, OplockLevel, type LeaseRequest } from './oplock.js';
import { expectStructureSize, fixedBody, type SmbRequest } from './request.js';

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
  /** RequestedOplockLevel (OplockLevel, messages/oplock.ts); none by default. LEASE needs `lease`. */
  oplockLevel?: number;
  /** SMB2_CREATE_REQUEST_LEASE: the lease to ask for, with oplockLevel LEASE. */
  lease?: LeaseRequest;
}

/** Name of the SMB2_CREATE_SD_BUFFER create context. */
const SD_BUFFER_CONTEXT = Buffer.from('SecD', 'latin1');

export function createRequest(p: CreateParams): SmbRequest {
  const name = utf16(p.name);
  const fixedAndName = 56 + Math.max(name.length, 1);
  const contexts: [Buffer, Buffer][] = [];
  if (p.securityDescriptor) contexts.push([SD_BUFFER_CONTEXT, p.securityDescriptor]);
  if (p.lease) contexts.push([LEASE_CONTEXT, leaseContextData(p.lease)]);
  const context = contexts.length > 0 ? createContexts(contexts) : undefined;
  // Create contexts start 8-byte aligned after the name (offsets count from the SMB2 header, itself aligned).
  const contextAt = align8(fixedAndName);
  const b = Buffer.alloc(context ? contextAt + context.length : fixedAndName);
  b.writeUInt16LE(57, 0);
  b.writeUInt8(p.oplockLevel ?? 0, 3);
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

/**
 * A chain of SMB2_CREATE_CONTEXTs (MS-SMB2 2.2.13.2), each (name, data): header, name, data at an 8-byte boundary;
 * every one but the last starts the next at an 8-byte boundary (NextEntryOffset).
 */
function createContexts(contexts: readonly [Buffer, Buffer][]): Buffer {
  const entries = contexts.map(([name, data], i) => {
    const dataAt = align8(16 + name.length);
    const size = dataAt + data.length;
    const b = Buffer.alloc(i < contexts.length - 1 ? align8(size) : size);
    if (i < contexts.length - 1) b.writeUInt32LE(b.length, 0); // NextEntryOffset
    b.writeUInt16LE(16, 4); // NameOffset
    b.writeUInt16LE(name.length, 6);
    b.writeUInt16LE(dataAt, 10); // DataOffset
    b.writeUInt32LE(data.length, 12);
    name.copy(b, 16);
    data.copy(b, dataAt);
    return b;
  });
  return Buffer.concat(entries);
}

/** The data of the response's create context named `name`, if the server sent one. */
function responseContext(r: WireReader, name: Buffer): Buffer | undefined {
  const offset = r.u32(HEADER_SIZE + 80);
  const length = r.u32(HEADER_SIZE + 84);
  if (offset === 0 || length === 0) return undefined;
  const chain = r.sub(offset, length, 'CREATE response contexts');
  for (let at = 0; ; ) {
    if (chain.bytes(at + chain.u16(at + 4), chain.u16(at + 6)).equals(name)) return chain.bytes(at + chain.u16(at + 10), chain.u32(at + 12));
    const next = chain.u32(at);
    if (next === 0) return undefined;
    at += next;
  }
}

export interface CreateResponse extends FileTimes {
  createAction: number;
  allocationSize: number;
  endOfFile: number;
  fileAttributes: number;
  fileId: Buffer;
  /** OplockLevel granted (LEASE when a lease was). */
  oplockLevel: number;
  /** LeaseState granted, when the request asked for a lease and the server sent its answer. */
  leaseState?: number;
}

export function parseCreateResponse(r: WireReader): CreateResponse {
  expectStructureSize(r, 89, 'CREATE');
  const b = HEADER_SIZE;
  const oplockLevel = r.u8(b + 2);
  const lease = oplockLevel === OplockLevel.LEASE ? responseContext(r, LEASE_CONTEXT) : undefined;
  return {
    oplockLevel,
    ...(lease ? { leaseState: grantedLeaseState(lease) } : {}),
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
