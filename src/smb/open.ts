/**
 * Opens (MS-SMB2 3.2.4.3 ff.): a FileHandle for CREATE'd files and directories, with READ/WRITE split by the
 * negotiated maximums, FLUSH, QUERY_DIRECTORY paging, QUERY_INFO, SET_INFO and CLOSE; plus the compound
 * round trips for small files (CREATE + READ/QUERY_INFO/WRITE/SET_INFO + CLOSE).
 */
import { NtStatus, SmbError, SmbProtocolError, SmbStatusError } from './errors.js';
import { assertStatus, type HeldRequestOptions, type SmbResponse } from './connection.js';
import {
  FileInfoClass,
  parseAllInfo,
  parseBasicInfo,
  parseIdFullDirectoryInfo,
  parseFileNotifyInformation,
  parseInternalInfo,
  parseStandardInfo,
  type DirectoryEntry,
  type NotifyRecord,
  type FileAllInfo,
  type FileBasicInfo,
  type FileStandardInfo,
} from './fscc.js';
import { changeNotifyRequest } from './messages/change-notify.js';
import { type LockElement, lockRequest } from './messages/lock.js';
import { closeRequest, type CreateParams, createRequest, type CreateResponse, flushRequest, parseCreateResponse, RELATED_FILE_ID } from './messages/create.js';
import { InfoType, parseOutputBuffer, QueryDirectoryFlags, queryDirectoryRequest, queryInfoRequest, SecurityInformation, setInfoRequest } from './messages/query.js';
import { parseReadResponse, parseWriteResponse, readRequest, writeRequest } from './messages/read-write.js';
import type { SmbRequest } from './messages/request.js';
import { encodeSecurityDescriptor, parseSecurityDescriptor } from './security-descriptor.js';
import type { SecurityDescriptor } from '../windows-security/access-control.js';
import type { Tree } from './tree.js';
import { WireReader } from './wire.js';

/** Output buffer for QUERY_DIRECTORY and QUERY_INFO; one credit. */
const QUERY_BUFFER = 65536;
const SECURITY_ALL = SecurityInformation.OWNER | SecurityInformation.GROUP | SecurityInformation.DACL;
/** Output buffer of CHANGE_NOTIFY; one credit. Changes that do not fit come back as an overflow. */
const NOTIFY_BUFFER = 65536;

/** How one CHANGE_NOTIFY ended: the changes, an overflow (the caller must list again), or our own CANCEL. */
type NotifyAnswer = { kind: 'changes'; records: NotifyRecord[] } | { kind: 'overflow' } | { kind: 'cancelled' };

/** Runs `count` jobs with at most `limit` in flight, preserving result order. */
async function inParallel<T>(count: number, limit: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

export class FileHandle {
  private closing: Promise<void> | undefined;

  constructor(
    readonly tree: Tree,
    readonly path: string,
    readonly fileId: Buffer,
    readonly info: CreateResponse,
  ) {}

  static async open(tree: Tree, params: CreateParams): Promise<FileHandle> {
    const res = await tree.request(createRequest(params));
    const info = parseCreateResponse(res.reader);
    return new FileHandle(tree, params.name, info.fileId, info);
  }

  private what(op: string): string {
    return `${op} ${this.tree.shareName}\\${this.path}`;
  }

  /**
   * One READ of at most the negotiated maximum; fewer bytes at end of file. Its bytes are a view of the response
   * message, not a copy: nothing writes to a received message (assembled from the socket's chunks, or decrypted)
   * once it is verified, and a copy of every MiB read cost a fresh MiB of memory and its page faults
   * (bench/RESULTS.md, SMB client: one file of 64 MiB).
   */
  async readChunk(offset: number, length: number): Promise<Buffer> {
    const res = await this.tree.request(readRequest(this.fileId, offset, length), [NtStatus.END_OF_FILE]);
    if (res.header.status === NtStatus.END_OF_FILE) return Buffer.alloc(0);
    return parseReadResponse(res.reader);
  }

  /** Reads [offset, offset + length) with parallel chunked READs; one READ's bytes are returned as they came. */
  async read(offset: number, length: number): Promise<Buffer> {
    const chunk = this.tree.session.connection.maxReadSize;
    const count = Math.ceil(length / chunk);
    const parts = await inParallel(count, 16, (i) => this.readChunk(offset + i * chunk, Math.min(chunk, length - i * chunk)));
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  async write(offset: number, data: Buffer): Promise<void> {
    const chunk = this.tree.session.connection.maxWriteSize;
    const count = Math.ceil(data.length / chunk);
    await inParallel(count, 16, async (i) => {
      const part = data.subarray(i * chunk, (i + 1) * chunk);
      const res = await this.tree.request(writeRequest(this.fileId, offset + i * chunk, part));
      const written = parseWriteResponse(res.reader);
      if (written !== part.length) throw new SmbError('DISK_FULL', `${this.what('WRITE')}: server wrote ${written} of ${part.length} bytes`);
    });
  }

  /** Takes or releases byte ranges of the file; a range another open holds fails with LOCK_CONFLICT. */
  async lock(locks: readonly LockElement[]): Promise<void> {
    await this.tree.request(lockRequest(this.fileId, locks));
  }

  async flush(): Promise<void> {
    await this.tree.request(flushRequest(this.fileId));
  }

  /** One QUERY_DIRECTORY page; null when the enumeration is exhausted. */
  async queryDirectoryPage(pattern = '*', restart = false): Promise<DirectoryEntry[] | null> {
    const req = queryDirectoryRequest(
      this.fileId,
      FileInfoClass.FileIdFullDirectoryInformation,
      pattern,
      restart ? QueryDirectoryFlags.RESTART_SCANS : 0,
      QUERY_BUFFER,
    );
    const res = await this.tree.request(req, [NtStatus.NO_MORE_FILES]);
    return directoryPage(res);
  }

  /** All entries except '.' and '..', paging until NO_MORE_FILES. */
  async queryDirectory(pattern = '*'): Promise<DirectoryEntry[]> {
    const all: DirectoryEntry[] = [];
    for (let restart = true; ; restart = false) {
      const page = await this.queryDirectoryPage(pattern, restart);
      if (!page) return all.filter(isRealEntry);
      all.push(...page);
    }
  }

  async queryInfo(infoType: number, infoClass: number, additional = 0): Promise<Buffer> {
    const res = await this.tree.request(queryInfoRequest(this.fileId, infoType, infoClass, QUERY_BUFFER, additional));
    return parseOutputBuffer(res.reader, 'QUERY_INFO');
  }

  async basicInfo(): Promise<FileBasicInfo> {
    return parseBasicInfo(new WireReader(await this.queryInfo(InfoType.FILE, FileInfoClass.FileBasicInformation), 'FileBasicInformation'));
  }
  async standardInfo(): Promise<FileStandardInfo> {
    return parseStandardInfo(new WireReader(await this.queryInfo(InfoType.FILE, FileInfoClass.FileStandardInformation), 'FileStandardInformation'));
  }
  async internalId(): Promise<string> {
    return parseInternalIdResponse(await this.tree.request(internalIdRequest(this.fileId)));
  }
  async allInfo(): Promise<FileAllInfo> {
    return parseAllInfoResponse(await this.tree.request(allInfoRequest(this.fileId)));
  }
  async securityDescriptor(): Promise<SecurityDescriptor> {
    return parseSecurityDescriptor(await this.queryInfo(InfoType.SECURITY, 0, SECURITY_ALL));
  }

  /**
   * Waits for the next changes below this directory (MS-SMB2 3.2.4.18): the request stays outstanding, with no
   * timeout once the server has taken it, until something changes, `options.signal` cancels it or the connection
   * drops. The server keeps recording changes on the handle between two requests. A closed handle
   * (STATUS_NOTIFY_CLEANUP) fails with FILE_CLOSED.
   */
  async changeNotify(filter: number, watchTree: boolean, options: HeldRequestOptions = {}): Promise<NotifyAnswer> {
    const res = await this.tree.held(changeNotifyRequest(this.fileId, filter, watchTree, NOTIFY_BUFFER), options);
    if (res.header.status === NtStatus.NOTIFY_ENUM_DIR) return { kind: 'overflow' };
    if (res.header.status === NtStatus.CANCELLED) return { kind: 'cancelled' };
    assertStatus(res, this.what('CHANGE_NOTIFY'));
    const buf = parseOutputBuffer(res.reader, 'CHANGE_NOTIFY');
    // Success without entries is how older servers (Samba's SMB1 heritage) say that the changes did not fit.
    if (buf.length === 0) return { kind: 'overflow' };
    return { kind: 'changes', records: parseFileNotifyInformation(buf) };
  }

  async setInfo(infoClass: number, data: Buffer, infoType: number = InfoType.FILE, additional = 0): Promise<void> {
    await this.tree.request(setInfoRequest(this.fileId, infoType, infoClass, data, additional));
  }

  /** Closes the handle once; a second call waits for the same CLOSE. */
  close(): Promise<void> {
    this.closing ??= this.tree.request(closeRequest(this.fileId)).then(() => undefined);
    return this.closing;
  }
}

function isRealEntry(e: DirectoryEntry): boolean {
  return e.name !== '.' && e.name !== '..';
}

function directoryPage(res: SmbResponse): DirectoryEntry[] | null {
  if (res.header.status === NtStatus.NO_MORE_FILES) return null;
  assertStatus(res, 'QUERY_DIRECTORY');
  const buf = parseOutputBuffer(res.reader, 'QUERY_DIRECTORY');
  if (buf.length === 0) return null;
  return parseIdFullDirectoryInfo(buf);
}

/** The first failing status of a compound decides; the CREATE's error is the meaningful one. */
function checkCompound(responses: SmbResponse[], what: string, ok: readonly number[][] = []): void {
  responses.forEach((r, i) => assertStatus(r, what, ok[i] ?? []));
}

function expectCount(responses: SmbResponse[], n: number): void {
  if (responses.length !== n) throw new SmbProtocolError(`compound returned ${responses.length} responses, expected ${n}`);
}

/** The related chain CREATE + <requests on the new handle> + CLOSE. */
function openDoCloseChain(params: CreateParams, middle: readonly SmbRequest[]): SmbRequest[] {
  return [createRequest(params), ...middle, closeRequest(RELATED_FILE_ID)];
}

/** The answers of an openDoCloseChain, checked (the CREATE's status, then each middle one's): the CREATE and middle responses. */
function openDoCloseAnswer(
  tree: Tree,
  params: CreateParams,
  middle: readonly SmbRequest[],
  responses: SmbResponse[],
  ok: readonly number[][] = [],
): { create: CreateResponse; responses: SmbResponse[] } {
  expectCount(responses, middle.length + 2);
  checkCompound(responses.slice(0, 1), `CREATE ${tree.shareName}\\${params.name}`);
  checkCompound(responses.slice(1, -1), `${tree.shareName}\\${params.name}`, ok);
  return { create: parseCreateResponse(responses[0]!.reader), responses: responses.slice(1, -1) };
}

/** CREATE + <request on the new handle> + CLOSE in one round trip; returns the CREATE and middle responses. */
export async function openDoClose(
  tree: Tree,
  params: CreateParams,
  middle: readonly SmbRequest[],
  ok: readonly number[][] = [],
): Promise<{ create: CreateResponse; responses: SmbResponse[] }> {
  return openDoCloseAnswer(tree, params, middle, await tree.compound(openDoCloseChain(params, middle)), ok);
}

/**
 * Reads [offset, offset + length) of a file (to its end by default): CREATE + READ + CLOSE in one round trip.
 * If the first 64 KiB READ did not cover the range, the whole range is read again on one open handle, so that
 * a file replaced in between is never stitched together from two versions.
 */
export async function readFileRange(tree: Tree, params: CreateParams, offset = 0, length = Infinity): Promise<Buffer> {
  const firstRead = Math.min(length, QUERY_BUFFER);
  const { create, responses } = await openDoClose(tree, params, [readRequest(RELATED_FILE_ID, offset, firstRead)], [[NtStatus.END_OF_FILE]]);
  const head = responses[0]!.header.status === NtStatus.END_OF_FILE ? Buffer.alloc(0) : Buffer.from(parseReadResponse(responses[0]!.reader));
  if (offset + head.length >= Math.min(create.endOfFile, offset + length)) return head;
  const handle = await FileHandle.open(tree, params);
  try {
    const end = Math.min(handle.info.endOfFile, offset + length);
    return await handle.read(offset, Math.max(0, end - offset));
  } finally {
    await handle.close();
  }
}

/** QUERY_INFO FileInternalInformation (the file id) on the handle of a compound (or an explicit FileId). */
export function internalIdRequest(fileId: Buffer = RELATED_FILE_ID): SmbRequest {
  return queryInfoRequest(fileId, InfoType.FILE, FileInfoClass.FileInternalInformation, QUERY_BUFFER);
}

export function parseInternalIdResponse(res: SmbResponse): string {
  return parseInternalInfo(new WireReader(parseOutputBuffer(res.reader, 'QUERY_INFO'), 'FileInternalInformation'));
}

/** QUERY_INFO FileAllInformation on the handle of a compound (or an explicit FileId). */
function allInfoRequest(fileId: Buffer = RELATED_FILE_ID): SmbRequest {
  return queryInfoRequest(fileId, InfoType.FILE, FileInfoClass.FileAllInformation, QUERY_BUFFER);
}

function parseAllInfoResponse(res: SmbResponse): FileAllInfo {
  return parseAllInfo(new WireReader(parseOutputBuffer(res.reader, 'QUERY_INFO'), 'FileAllInformation'));
}

export async function queryAllInfo(tree: Tree, params: CreateParams): Promise<FileAllInfo> {
  const { responses } = await openDoClose(tree, params, [allInfoRequest()]);
  return parseAllInfoResponse(responses[0]!);
}

/** QUERY_INFO of the parts of the security descriptor that `info` (SecurityInformation bits) names, on the handle of a compound. */
function securityRequest(info: number): SmbRequest {
  return queryInfoRequest(RELATED_FILE_ID, InfoType.SECURITY, 0, QUERY_BUFFER, info);
}

function parseSecurityResponse(res: SmbResponse): SecurityDescriptor {
  return parseSecurityDescriptor(parseOutputBuffer(res.reader, 'QUERY_INFO'));
}

/** The parts of the security descriptor that `info` (SecurityInformation bits) names; the open needs READ_CONTROL. */
export async function querySecurity(tree: Tree, params: CreateParams, info: number = SECURITY_ALL): Promise<SecurityDescriptor> {
  const { responses } = await openDoClose(tree, params, [securityRequest(info)]);
  return parseSecurityResponse(responses[0]!);
}

/**
 * querySecurity of several files, each of its own open, in one round trip: their openDoClose chains in one compound
 * message. Each file's answer is its descriptor, or the status error querySecurity would have thrown for it.
 */
export async function querySecurityOfEach(tree: Tree, files: readonly CreateParams[], info: number = SECURITY_ALL): Promise<(SecurityDescriptor | SmbStatusError)[]> {
  const middle = [securityRequest(info)];
  const answers = await tree.compoundChains(files.map((params) => openDoCloseChain(params, middle)));
  return answers.map((responses, i) => {
    try {
      return parseSecurityResponse(openDoCloseAnswer(tree, files[i]!, middle, responses).responses[0]!);
    } catch (err) {
      if (err instanceof SmbStatusError) return err;
      throw err;
    }
  });
}

/**
 * A file's security descriptor and its first 64 KiB, of one open: CREATE, QUERY_INFO security, READ and CLOSE in one
 * round trip (the open needs READ_CONTROL and FILE_READ_DATA). `endOfFile` says whether `head` is the whole file.
 */
export async function querySecurityAndHead(tree: Tree, params: CreateParams): Promise<{ securityDescriptor: SecurityDescriptor; endOfFile: number; head: Buffer }> {
  const { create, responses } = await openDoClose(tree, params, [
    queryInfoRequest(RELATED_FILE_ID, InfoType.SECURITY, 0, QUERY_BUFFER, SECURITY_ALL),
    readRequest(RELATED_FILE_ID, 0, QUERY_BUFFER),
  ], [[], [NtStatus.END_OF_FILE]]);
  const read = responses[1]!;
  return {
    securityDescriptor: parseSecurityDescriptor(parseOutputBuffer(responses[0]!.reader, 'QUERY_INFO')),
    endOfFile: create.endOfFile,
    head: read.header.status === NtStatus.END_OF_FILE ? Buffer.alloc(0) : Buffer.from(parseReadResponse(read.reader)),
  };
}

/**
 * Writes the parts of `sd` that `info` names (MS-SMB2 2.2.39, SET_INFO with InfoType SECURITY); the open needs
 * WRITE_DAC for the DACL, WRITE_OWNER for owner and group.
 */
export async function setSecurityByPath(tree: Tree, params: CreateParams, sd: SecurityDescriptor, info: number): Promise<void> {
  await openDoClose(tree, params, [setInfoRequest(RELATED_FILE_ID, InfoType.SECURITY, 0, encodeSecurityDescriptor(sd), info)]);
}

export async function setInfoByPath(tree: Tree, params: CreateParams, infoClass: number, data: Buffer): Promise<void> {
  await openDoClose(tree, params, [setInfoRequest(RELATED_FILE_ID, InfoType.FILE, infoClass, data)]);
}

/**
 * Lists a directory in one round trip when it fits: CREATE + QUERY_DIRECTORY x2 + CLOSE. If the second page
 * was not the end, the listing is repeated on a kept-open handle with paging.
 */
export async function listDirectory(tree: Tree, params: CreateParams): Promise<DirectoryEntry[]> {
  const query = (flags: number): SmbRequest =>
    queryDirectoryRequest(RELATED_FILE_ID, FileInfoClass.FileIdFullDirectoryInformation, '*', flags, QUERY_BUFFER);
  const none = [NtStatus.NO_MORE_FILES];
  const { responses } = await openDoClose(tree, params, [query(QueryDirectoryFlags.RESTART_SCANS), query(0)], [none, none]);
  const first = directoryPage(responses[0]!);
  const second = directoryPage(responses[1]!);
  if (!first || !second) return (first ?? []).filter(isRealEntry);
  const handle = await FileHandle.open(tree, params);
  try {
    return await handle.queryDirectory();
  } finally {
    await handle.close();
  }
}

/**
 * The members of a directory that `name` (no wildcards) stands for, in one round trip: CREATE + QUERY_DIRECTORY
 * with `name` as the search pattern + CLOSE. The server matches a pattern against each member's long name and its
 * 8.3 short name, and answers with the long name (MS-FSCC 2.1.4.4); [] when nothing matches.
 */
export async function membersNamed(tree: Tree, params: CreateParams, name: string): Promise<DirectoryEntry[]> {
  const query = queryDirectoryRequest(RELATED_FILE_ID, FileInfoClass.FileIdFullDirectoryInformation, name, QueryDirectoryFlags.RESTART_SCANS, QUERY_BUFFER);
  const { responses } = await openDoClose(tree, params, [query], [[NtStatus.NO_SUCH_FILE, NtStatus.NO_MORE_FILES]]);
  const answer = responses[0]!;
  if (answer.header.status === NtStatus.NO_SUCH_FILE) return [];
  return (directoryPage(answer) ?? []).filter(isRealEntry);
}
