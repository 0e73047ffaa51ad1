// The SMB side of WebDAV: one share, opened with the requesting user's
// credentials, in the terms WebDAV uses (DavEntry, share paths). The SMB
// work is the facade's (src/smb/client.ts): reads that return the file
// version (for the ETag) in the same round trip as the data, and uploads of
// any size streamed to a temporary file with a check between writing and
// renaming (If-Match, locks; src/smb/upload.ts).
import { SmbError, TEMP_NAME, type CommitMode, type SmbShare, type SmbStat } from '../smb/index.js';
import type { DavEntry } from './properties.js';

/** Bytes read together with the open; most wiki pages fit. */
const HEAD_BYTES = 64 * 1024;

export interface UploadResult {
  entry: DavEntry;
  /** The target did not exist before. */
  created: boolean;
}

export class DavStorage {
  constructor(private readonly smb: SmbShare, readonly share: string) {}

  entryOf(s: SmbStat, path = s.path): DavEntry {
    return {
      share: this.share, path, name: s.name, isCollection: s.isDirectory, size: s.size, fileId: s.fileId,
      mtimeMs: s.mtimeMs, birthtimeMs: s.birthtime.getTime(),
    };
  }

  /** The entry, or null when nothing exists at `path`. */
  async stat(path: string): Promise<DavEntry | null> {
    try {
      return this.entryOf(await this.smb.stat(path), path);
    } catch (err) {
      if (err instanceof SmbError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  /** Whether the file server grants this user `access` on `path`; asked anew each time: nothing outlives an ACL change. */
  checkAccess(path: string, access: number): Promise<void> {
    return this.smb.checkAccess(path, access);
  }

  /** The members of a folder, without temporary upload files. */
  async list(path: string): Promise<DavEntry[]> {
    return (await this.smb.readdir(path)).filter((s) => !TEMP_NAME.test(s.name)).map((s) => this.entryOf(s));
  }

  /** The file and its first bytes, of the same version, in one round trip. A folder fails with IS_A_DIRECTORY. */
  async openRead(path: string): Promise<{ entry: DavEntry; head: Buffer }> {
    const { stat, head } = await this.smb.openRead(path, HEAD_BYTES);
    return { entry: this.entryOf(stat, path), head };
  }

  /**
   * Bytes [start, end] of the file version `fileId`, in blocks as the consumer takes them. Fails with
   * NOT_FOUND if the file was replaced since that version was seen.
   */
  readBlocks(path: string, fileId: string, start: number, end: number): AsyncGenerator<Buffer> {
    return this.smb.readBlocks(path, fileId, start, end);
  }

  /** Every entry below a folder (not the folder itself), without temporary upload files. */
  async *walk(path: string): AsyncGenerator<DavEntry> {
    for await (const s of this.smb.walk(path)) if (!TEMP_NAME.test(s.name)) yield this.entryOf(s);
  }

  /**
   * Writes `chunks` to a temporary file next to `path`, calls `decide` (which may check preconditions and
   * locks, or throw to abandon the upload) and renames it over the target as decided: readers see the old or
   * the new version, never a part. A replaced file's DACL is carried over; if that fails, the upload fails with
   * SECURITY_NOT_CARRIED and the old content stays (see src/smb/upload.ts).
   */
  async upload(path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<UploadResult> {
    const { stat, created } = await this.smb.upload(path, chunks, decide);
    return { entry: this.entryOf(stat, path), created };
  }

  mkdir(path: string): Promise<void> {
    return this.smb.mkdir(path);
  }

  rename(from: string, to: string, replace: boolean): Promise<void> {
    return this.smb.rename(from, to, { replace });
  }

  removeFile(path: string): Promise<void> {
    return this.smb.unlink(path);
  }

  removeFolder(path: string): Promise<void> {
    return this.smb.rmdir(path);
  }
}
