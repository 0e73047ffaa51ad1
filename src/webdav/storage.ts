// The SMB side of WebDAV: one share, opened with the requesting user's
// credentials, in the terms WebDAV uses (DavEntry, share paths). The SMB
// work is the facade's (src/smb/client.ts): reads that return the file
// version (for the ETag) in the same round trip as the data, and in-place
// writes of any size as the user, with a check (If-Match, locks) between the
// body's arrival and the write (src/smb/upload.ts).
import { SmbError, TEMP_NAME, type CommitMode, type SmbShare, type SmbStat } from '../smb/index.js';
import type { DavEntry } from './properties.js';

/** Bytes read together with the open; most wiki pages fit. */
const HEAD_BYTES = 64 * 1024;

interface UploadResult {
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

  /**
   * The long names of the members of `folder` that `name` stands for, as itself or as their 8.3 short name; [] when
   * none does, or when `folder` does not exist or is a file.
   */
  async longNamesOf(folder: string, name: string): Promise<string[]> {
    try {
      return await this.smb.longNamesOf(folder, name);
    } catch (err) {
      if (err instanceof SmbError && (err.code === 'NOT_FOUND' || err.code === 'NOT_A_DIRECTORY')) return [];
      throw err;
    }
  }

  /** The file and its first bytes, of the same version, in one round trip. A folder fails with IS_A_DIRECTORY. */
  async openRead(path: string): Promise<{ entry: DavEntry; head: Buffer }> {
    const { stat, head } = await this.smb.openRead(path, HEAD_BYTES);
    return { entry: this.entryOf(stat, path), head };
  }

  /**
   * Bytes [start, end] of the version of the file that `entry` describes, in blocks as the consumer takes them.
   * Fails with NOT_FOUND if the file was replaced or written since that version was seen, or while it was read.
   */
  readBlocks(entry: DavEntry, start: number, end: number): AsyncGenerator<Buffer> {
    return this.smb.readBlocks(entry.path, entry, start, end);
  }

  /**
   * Every entry below a folder (not the folder itself), without temporary upload files. A folder that cannot be
   * listed ends the walk with its error, or with what `unlisted` throws for it (to name the folder).
   */
  async *walk(path: string, unlisted?: (err: unknown, folder: string) => never): AsyncGenerator<DavEntry> {
    for await (const s of this.smb.walk(path, unlisted ? { onError: unlisted } : {})) if (!TEMP_NAME.test(s.name)) yield this.entryOf(s);
  }

  /**
   * Takes in the body, calls `decide` (which may check preconditions and locks, or throw to abandon the upload)
   * and writes the body over the target in place as decided, as this user: the file server decides, and the
   * file keeps its owner and DACL (see src/smb/upload.ts).
   */
  async upload(path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<UploadResult> {
    const { stat, created } = await this.smb.upload(path, chunks, decide);
    return { entry: this.entryOf(stat, path), created };
  }

  mkdir(path: string): Promise<void> {
    return this.smb.mkdir(path);
  }

  /**
   * Renames within the share in one step: an existing target fails with NAME_COLLISION, or with `replace` is
   * replaced (a file only; the file server checks the share modes of both, not the user's right to delete the target).
   */
  rename(from: string, to: string, options: { replace?: boolean } = {}): Promise<void> {
    return this.smb.rename(from, to, options);
  }

  removeFile(path: string): Promise<void> {
    return this.smb.unlink(path);
  }

  removeFolder(path: string): Promise<void> {
    return this.smb.rmdir(path);
  }
}
