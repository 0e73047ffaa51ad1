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

/** A buffer of FILE_ID_FULL_DIR_INFORMATION entries chained by NextEntryOffset. */
export function parseIdFullDirectoryInfo(buf: Buffer): DirectoryEntry[] {
  const r = new WireReader(buf, 'directory listing');
  const out: DirectoryEntry[] = [];
  for (let off = 0; ; ) {
    const next = r.u32(off);
    const nameLength = r.u32(off + 60);
    out.push({
      ...readFileTimes(r, off + 8),
      endOfFile: r.u64n(off + 40),
      allocationSize: r.u64n(off + 48),
      fileAttributes: r.u32(off + 56),
      fileId: r.u64(off + 72).toString(),
      name: r.utf16(off + 80, nameLength),
    });
    if (next === 0) return out;
    if (next < 80 || next % 8 !== 0) throw new SmbProtocolError(`directory entry has an invalid NextEntryOffset ${next}`);
    off += next;
  }
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
