/**
 * File information classes (MS-FSCC 2.4) used by QUERY_INFO, SET_INFO and QUERY_DIRECTORY.
 */
import { SmbProtocolError } from './errors.js';
import { WireReader, filetimeToMs, msToFiletime, utf16 } from './wire.js';

export const FileInfoClass = {
  FileBasicInformation: 4,
  FileStandardInformation: 5,
  FileInternalInformation: 6,
  FileRenameInformation: 10,
  FileDispositionInformation: 13,
  FileAllInformation: 18,
  FileEndOfFileInformation: 20,
  FileIdFullDirectoryInformation: 38,
} as const;

/** The four FILETIMEs, as ms since the Unix epoch (0 = not set). */
export interface FileTimes {
  creationTime: number;
  lastAccessTime: number;
  lastWriteTime: number;
  changeTime: number;
}

/** Creation, last access, last write and change time: four consecutive FILETIMEs at `at`. */
export function readFileTimes(r: WireReader, at: number): FileTimes {
  return {
    creationTime: filetimeToMs(r.u64(at)),
    lastAccessTime: filetimeToMs(r.u64(at + 8)),
    lastWriteTime: filetimeToMs(r.u64(at + 16)),
    changeTime: filetimeToMs(r.u64(at + 24)),
  };
}

export interface FileBasicInfo extends FileTimes {
  fileAttributes: number;
}
export interface FileStandardInfo {
  allocationSize: number;
  endOfFile: number;
  numberOfLinks: number;
  deletePending: boolean;
  directory: boolean;
}
export interface FileAllInfo {
  basic: FileBasicInfo;
  standard: FileStandardInfo;
  /** IndexNumber from FileInternalInformation, as a decimal string (u64). */
  fileId: string;
  eaSize: number;
  accessFlags: number;
  currentByteOffset: number;
  mode: number;
  alignment: number;
  name: string;
}

export function parseBasicInfo(r: WireReader, at = 0): FileBasicInfo {
  return { ...readFileTimes(r, at), fileAttributes: r.u32(at + 32) };
}

export function parseStandardInfo(r: WireReader, at = 0): FileStandardInfo {
  return {
    allocationSize: r.u64n(at),
    endOfFile: r.u64n(at + 8),
    numberOfLinks: r.u32(at + 16),
    deletePending: r.u8(at + 20) !== 0,
    directory: r.u8(at + 21) !== 0,
  };
}

export function parseInternalInfo(r: WireReader, at = 0): string {
  return r.u64(at).toString();
}

export function parseAllInfo(r: WireReader): FileAllInfo {
  const nameLength = r.u32(96);
  return {
    basic: parseBasicInfo(r, 0),
    standard: parseStandardInfo(r, 40),
    fileId: parseInternalInfo(r, 64),
    eaSize: r.u32(72),
    accessFlags: r.u32(76),
    currentByteOffset: r.u64n(80),
    mode: r.u32(88),
    alignment: r.u32(92),
    name: r.utf16(100, nameLength),
  };
}

export interface DirectoryEntry extends FileTimes {
  name: string;
  endOfFile: number;
  allocationSize: number;
  fileAttributes: number;
  fileId: string;
}

/**
 * Entries chained by a u32 NextEntryOffset at their start (0 ends the chain). Each offset must move past the
 * entry's fixed part, on the structure's alignment, so that the walk only goes forward and ends inside the buffer.
 */
function chainedEntries<T>(buf: Buffer, what: string, fixedSize: number, alignment: number, read: (r: WireReader, at: number) => T): T[] {
  const r = new WireReader(buf, what);
  const out: T[] = [];
  for (let off = 0; ; ) {
    const next = r.u32(off);
    out.push(read(r, off));
    if (next === 0) return out;
    if (next < fixedSize || next % alignment !== 0) throw new SmbProtocolError(`${what} has an invalid NextEntryOffset ${next}`);
    off += next;
  }
}

/** A buffer of FILE_ID_FULL_DIR_INFORMATION entries chained by NextEntryOffset. */
export function parseIdFullDirectoryInfo(buf: Buffer): DirectoryEntry[] {
  return chainedEntries(buf, 'directory listing', 80, 8, (r, off) => ({
    ...readFileTimes(r, off + 8),
    endOfFile: r.u64n(off + 40),
    allocationSize: r.u64n(off + 48),
    fileAttributes: r.u32(off + 56),
    fileId: r.u64(off + 72).toString(),
    name: r.utf16(off + 80, r.u32(off + 60)),
  }));
}

/** CompletionFilter bits of CHANGE_NOTIFY (MS-SMB2 2.2.35): which kinds of change are reported. */
export const FileNotifyChange = {
  FILE_NAME: 0x1,
  DIR_NAME: 0x2,
  ATTRIBUTES: 0x4,
  SIZE: 0x8,
  LAST_WRITE: 0x10,
  LAST_ACCESS: 0x20,
  CREATION: 0x40,
  EA: 0x80,
  SECURITY: 0x100,
  STREAM_NAME: 0x200,
  STREAM_SIZE: 0x400,
  STREAM_WRITE: 0x800,
} as const;

/** The Action of a FILE_NOTIFY_INFORMATION entry (MS-FSCC 2.7.1). */
export const FileAction = {
  ADDED: 1,
  REMOVED: 2,
  MODIFIED: 3,
  RENAMED_OLD_NAME: 4,
  RENAMED_NEW_NAME: 5,
  ADDED_STREAM: 6,
  REMOVED_STREAM: 7,
  MODIFIED_STREAM: 8,
} as const;

export interface NotifyRecord {
  /** A FileAction value; others (newer servers may send more) are passed on as they are. */
  action: number;
  /** Relative to the watched directory, with the server's backslashes. */
  name: string;
}

/**
 * A buffer of FILE_NOTIFY_INFORMATION entries (MS-FSCC 2.7.1: NextEntryOffset, Action, FileNameLength, FileName;
 * 4-byte aligned) chained by NextEntryOffset.
 */
export function parseFileNotifyInformation(buf: Buffer): NotifyRecord[] {
  return chainedEntries(buf, 'change notification', 12, 4, (r, off) => ({ action: r.u32(off + 4), name: r.utf16(off + 12, r.u32(off + 8)) }));
}

/** FILE_RENAME_INFORMATION_TYPE_2 with RootDirectory 0: target is share-relative (backslashes). */
export function renameInfo(target: string, replaceIfExists: boolean): Buffer {
  const name = utf16(target);
  const b = Buffer.alloc(Math.max(20 + name.length, 24));
  b[0] = replaceIfExists ? 1 : 0;
  b.writeUInt32LE(name.length, 16);
  name.copy(b, 20);
  return b;
}

/** FileEndOfFileInformation: the file's new size (the open needs FILE_WRITE_DATA). */
export function endOfFileInfo(size: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(size));
  return b;
}

export function dispositionInfo(deletePending: boolean): Buffer {
  return Buffer.from([deletePending ? 1 : 0]);
}

/** FileBasicInformation for SET_INFO: 0 leaves a time or the attributes unchanged. */
export function basicInfo(times: Partial<FileTimes>, fileAttributes = 0): Buffer {
  const b = Buffer.alloc(40);
  const put = (ms: number | undefined, at: number): void => {
    if (ms !== undefined) b.writeBigUInt64LE(msToFiletime(ms), at);
  };
  put(times.creationTime, 0);
  put(times.lastAccessTime, 8);
  put(times.lastWriteTime, 16);
  put(times.changeTime, 24);
  b.writeUInt32LE(fileAttributes, 32);
  return b;
}
