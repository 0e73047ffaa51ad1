/**
 * File-system facade over the protocol layers: one SmbShare per (server, credentials, share), backed by the
 * pool. Paths are forward-slash, share-relative.
 */
import { NtStatus, SmbError, type SmbStatusError } from './errors.js';
import { FileInfoClass, basicInfo, dispositionInfo, renameInfo, type DirectoryEntry, type FileAllInfo, type FileTimes } from './fscc.js';
import { Access, closeRequest, CreateOptions, type CreateParams, createRequest, Disposition, FileAttributes, READ_ATTRS, RELATED_FILE_ID } from './messages/create.js';
import { SecurityInformation } from './messages/query.js';
import { parseReadResponse, readRequest } from './messages/read-write.js';
import {
  FileHandle,
  internalIdRequest,
  listDirectory,
  membersNamed,
  openDoClose,
  parseInternalIdResponse,
  queryAllInfo,
  querySecurity,
  querySecurityOfEach,
  querySecurityAndHead,
  readFileRange,
  setInfoByPath,
  setSecurityByPath,
} from './open.js';
import { normalizePath, splitPath, toSmbPath } from './paths.js';
import { retryWhileRefused } from './retry.js';
import { SmbPool, type Endpoint, type PooledSession, type SmbServer } from './pool.js';
import type { SecurityDescriptor } from '../windows-security/access-control.js';
import type { Credentials } from './session.js';
import type { Tree } from './tree.js';
import { BLOCK_SIZE, upload, type CommitMode } from './upload.js';
import { assertStatus } from './connection.js';

export interface SmbStat {
  /** Last path component ('' for the share root). */
  name: string;
  /** Share-relative forward-slash path. */
  path: string;
  size: number;
  isDirectory: boolean;
  attributes: number;
  /** Server's internal index number (u64, decimal) — stable per file, the basis of ETags. */
  fileId: string;
  birthtime: Date;
  atime: Date;
  mtime: Date;
  ctime: Date;
  mtimeMs: number;
}

/** One version of a file's content: a write changes its size or its last write time, a replace its file id. */
export interface FileVersion {
  fileId: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  /** Directory listings in flight at once (default 8). */
  concurrency?: number;
  /** Directories for which this returns false are not entered. */
  descend?: (dir: SmbStat) => boolean;
  /** Entries for which this returns false are not yielded (directories are still entered). */
  include?: (entry: SmbStat) => boolean;
  /**
   * Called when a directory cannot be listed (e.g. ACCESS_DENIED); the walk then skips it. Without this
   * handler the error ends the walk.
   */
  onError?: (error: unknown, dir: string) => void;
}

/** One change a watch reported. */
export interface WatchChange {
  /** A FileAction value (added, removed, modified, renamed old name / new name, ...). */
  action: number;
  /** Share-relative, forward-slash path of what changed. */
  path: string;
}

export interface WatchOptions {
  /** What to report: FileNotifyChange bits. */
  filter: number;
  /**
   * Each answer of the server, in order: the changes, or 'overflow' when more changed than one answer could carry
   * (the caller must list what it watches again). The watch is re-armed after it returns.
   */
  onChanges(changes: WatchChange[] | 'overflow'): void;
  /** Once the server holds the first request: every change from then on is reported. */
  onArmed?(): void;
  /** Ends the watch: the outstanding request is cancelled, the folder closed, and watch() resolves. */
  signal: AbortSignal;
}

export interface ShareOptions extends SmbServer, Credentials {
  share: string;
}

/** `path` is already normalised; `name` is its last component. */
function toStat(path: string, name: string, t: FileTimes & { fileAttributes: number }, size: number, fileId: string): SmbStat {
  const isDirectory = (t.fileAttributes & FileAttributes.DIRECTORY) !== 0;
  return {
    name,
    path,
    size: isDirectory ? 0 : size,
    isDirectory,
    attributes: t.fileAttributes,
    fileId,
    birthtime: new Date(t.creationTime),
    atime: new Date(t.lastAccessTime),
    mtime: new Date(t.lastWriteTime),
    ctime: new Date(t.changeTime),
    mtimeMs: t.lastWriteTime,
  };
}

function statFromAll(path: string, info: FileAllInfo): SmbStat {
  return toStat(path, splitPath(path).base, info.basic, info.standard.endOfFile, info.fileId);
}

/** `dir` is already normalised. */
function statFromEntry(dir: string, e: DirectoryEntry): SmbStat {
  return toStat(dir ? `${dir}/${e.name}` : e.name, e.name, e, e.endOfFile, e.fileId);
}

export class SmbShare {
  /**
   * `endpoint` is looked up per operation, so that a share object outlives the eviction of its idle endpoint.
   */
  constructor(
    private readonly endpoint: () => Endpoint,
    readonly shareName: string,
  ) {
    if (!shareName || /[\\/]/.test(shareName)) throw new SmbError('INVALID_ARGUMENT', `invalid share name '${shareName}'`);
  }

  private read<T>(op: (tree: Tree) => Promise<T>): Promise<T> {
    return this.endpoint().run(this.shareName, true, op);
  }
  private modify<T>(op: (tree: Tree) => Promise<T>): Promise<T> {
    return this.endpoint().run(this.shareName, false, op);
  }

  /** Runs `op` with the share's tree, for protocol-level access (FileHandle etc.). */
  withTree<T>(op: (tree: Tree) => Promise<T>): Promise<T> {
    return this.modify(op);
  }

  /**
   * Whether the server takes these credentials on this share: the session setup (unless the pooled session is up)
   * and a tree connect. Resolves to how the session was authenticated; a client that must ask the server every time
   * (a readiness probe) uses a client of its own.
   */
  probe(): Promise<'kerberos' | 'ntlm'> {
    return this.read(async (tree) => tree.session.mechanism);
  }

  /** Sets up the session before the first operation, through `guard` unless one exists (see Endpoint.logon). */
  logon(guard: (setup: () => Promise<void>) => Promise<void>): Promise<void> {
    return this.endpoint().logon(guard);
  }

  /** The pooled session these credentials use now (a new one after the last was evicted or retired). */
  session(): PooledSession {
    return this.endpoint();
  }

  /** Local TCP port of the pooled connection, if connected. */
  localPort(): Promise<number | undefined> {
    return this.endpoint().localPort();
  }

  async stat(path: string): Promise<SmbStat> {
    const p = normalizePath(path);
    return this.read(async (tree) => statFromAll(p, await queryAllInfo(tree, { name: toSmbPath(p), desiredAccess: READ_ATTRS, disposition: Disposition.OPEN })));
  }

  /** The whole file, or `length` bytes (to the end by default) from `offset` — e.g. for HTTP range requests. */
  async readFile(path: string, range: { offset?: number; length?: number } = {}): Promise<Buffer> {
    const offset = range.offset ?? 0;
    const length = range.length ?? Infinity;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new SmbError('INVALID_ARGUMENT', `invalid read offset ${offset}`);
    if (length !== Infinity && (!Number.isSafeInteger(length) || length < 1)) {
      throw new SmbError('INVALID_ARGUMENT', `invalid read length ${length}`);
    }
    return afterSaves(() => this.read((tree) => readFileRange(tree, readParams(path, CreateOptions.NON_DIRECTORY_FILE), offset, length)));
  }

  /**
   * Opens a file and reads its first `length` bytes in one round trip: CREATE, file id, READ, CLOSE. The stat and
   * the bytes are of the same version. A folder fails with IS_A_DIRECTORY.
   */
  async openRead(path: string, length: number): Promise<{ stat: SmbStat; head: Buffer }> {
    const p = normalizePath(path);
    return afterSaves(() => onceMore(() => this.modify(async (tree) => {
      const { create, responses } = await openDoClose(tree, readParams(p, CreateOptions.NON_DIRECTORY_FILE), [
        internalIdRequest(),
        readRequest(RELATED_FILE_ID, 0, length),
      ], [[], [NtStatus.END_OF_FILE]]);
      const read = responses[1]!;
      const head = read.header.status === NtStatus.END_OF_FILE ? Buffer.alloc(0) : Buffer.from(parseReadResponse(read.reader));
      return { stat: toStat(p, splitPath(p).base, create, create.endOfFile, parseInternalIdResponse(responses[0]!)), head };
    })));
  }

  /**
   * Bytes [start, end] of one version of a file, in blocks as the consumer takes them, on one open handle. Fails
   * with NOT_FOUND if the file is no longer that version when it is opened, or was written while it was read (writes
   * are in place: the handle keeps reading the file as it changes, so the version is asked again after the last
   * block, and a consumer that sees the failure must discard what it got).
   */
  async *readBlocks(path: string, version: FileVersion, start: number, end: number): AsyncGenerator<Buffer> {
    const handle = await onceMore(() => this.modify((tree) => FileHandle.open(tree, readParams(path, CreateOptions.NON_DIRECTORY_FILE))));
    const changed = (info: FileAllInfo): boolean =>
      info.fileId !== version.fileId || info.standard.endOfFile !== version.size || info.basic.lastWriteTime !== version.mtimeMs;
    try {
      if (changed(await handle.allInfo())) throw new SmbError('NOT_FOUND', `${path} was replaced or written before it could be read`);
      for (let offset = start; offset <= end; offset += BLOCK_SIZE) {
        yield await afterSaves(() => handle.read(offset, Math.min(BLOCK_SIZE, end + 1 - offset)));
      }
      if (changed(await handle.allInfo())) throw new SmbError('NOT_FOUND', `${path} was written while it was being read`);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /**
   * Whether the file server grants `access` on `path`: a CREATE that only opens, with that desired access, and
   * its CLOSE in one round trip. ACCESS_DENIED is the server's refusal. A SHARING_VIOLATION counts as granted: the
   * server checks the access before the share modes of other opens (Windows and Samba alike), so only another
   * program holding the file stood in the way.
   */
  async checkAccess(path: string, access: number): Promise<void> {
    try {
      await onceMore(() => this.modify((tree) => openDoClose(tree, { name: toSmbPath(path), desiredAccess: access | READ_ATTRS, disposition: Disposition.OPEN }, [])));
    } catch (err) {
      if (!(err instanceof SmbError && err.code === 'SHARING_VIOLATION')) throw err;
    }
  }

  async readdir(path: string): Promise<SmbStat[]> {
    const dir = normalizePath(path);
    return this.read(async (tree) => (await listDirectory(tree, readParams(dir, CreateOptions.DIRECTORY_FILE))).map((e) => statFromEntry(dir, e)));
  }

  /**
   * The long names of the members of folder `dir` that `name` stands for: its own, when a member has that name, or
   * that of the member whose 8.3 short name it is; the file server matches both (see membersNamed). [] when none.
   */
  async longNamesOf(dir: string, name: string): Promise<string[]> {
    const d = normalizePath(dir);
    return this.read(async (tree) => (await membersNamed(tree, readParams(d, CreateOptions.DIRECTORY_FILE), name)).map((e) => e.name));
  }

  /** Walks the tree below `path` breadth-first with bounded concurrency. */
  async *walk(path: string, options: WalkOptions = {}): AsyncGenerator<SmbStat> {
    const limit = Math.max(1, options.concurrency ?? 8);
    const queue: string[] = [normalizePath(path)];
    const running = new Map<number, Promise<{ id: number; entries: SmbStat[] }>>();
    let nextId = 0;
    try {
      while (queue.length > 0 || running.size > 0) {
        while (running.size < limit && queue.length > 0) {
          const id = nextId++;
          const dir = queue.shift()!;
          const listing = this.readdir(dir).catch((err: unknown) => {
            if (!options.onError) throw err;
            options.onError(err, dir);
            return [];
          });
          running.set(id, listing.then((entries) => ({ id, entries })));
        }
        const { id, entries } = await Promise.race(running.values());
        running.delete(id);
        for (const e of entries) {
          if (e.isDirectory && (options.descend?.(e) ?? true)) queue.push(e.path);
          if (options.include?.(e) ?? true) yield e;
        }
      }
    } finally {
      for (const p of running.values()) p.catch(() => undefined);
    }
  }

  /**
   * Watches the whole share (SMB2_WATCH_TREE on its root folder) with CHANGE_NOTIFY until `options.signal` aborts:
   * opens the root, asks for the next changes, hands each answer to `onChanges` and asks again. The server records
   * changes on the open folder between two requests, so none is lost in between (beyond what overflows). Resolves
   * when stopped; rejects when the watch ends otherwise (the connection dropped, or was closed by a keep-alive ECHO
   * that timed out, one a minute for all the requests the connection holds: connection.ts; access was refused), and
   * the caller decides when to watch again. The session's signing and encryption apply as to every request. The
   * endpoint counts the watch as in use, so its connection is never closed as idle.
   *
   * Only the root, which no client can delete: a watch of a folder below it would hold that folder open, and a
   * folder another client deletes is removed only when its last handle closes (until then its parent cannot be
   * deleted: DIRECTORY_NOT_EMPTY). Stopping closes the folder at once rather than sending CANCEL first (the server
   * then ends the outstanding request itself, with STATUS_NOTIFY_CLEANUP or, older Samba, an empty answer).
   */
  async watch(options: WatchOptions): Promise<void> {
    const { signal } = options;
    if (signal.aborted) return;
    await this.modify(async (tree) => {
      const handle = await FileHandle.open(tree, readParams('', CreateOptions.DIRECTORY_FILE));
      const stop = (): void => void handle.close().catch(() => undefined);
      signal.addEventListener('abort', stop, { once: true });
      let armed = false;
      const arm = (): void => {
        if (armed) return;
        armed = true;
        options.onArmed?.();
      };
      try {
        for (;;) {
          if (signal.aborted) break;
          const answer = await handle.changeNotify(options.filter, true, { onInterim: arm }).catch((err: unknown) => {
            if (signal.aborted) return null; // how the server ended it after our CLOSE (STATUS_NOTIFY_CLEANUP)
            throw err;
          });
          // After our CLOSE, an answer without changes is that ending too (older servers), not an overflow.
          if (answer === null || answer.kind === 'cancelled' || signal.aborted) break;
          arm(); // the server answered at once: it held the request all the same
          if (answer.kind === 'overflow') options.onChanges('overflow');
          else options.onChanges(answer.records.map((r) => ({ action: r.action, path: r.name.replaceAll('\\', '/') })));
        }
      } finally {
        signal.removeEventListener('abort', stop);
        await handle.close().catch(() => undefined);
      }
    });
  }

  /**
   * Writes a file (creating it or writing over it in place) through the one write path of the facade (upload.ts);
   * returns the stat of the new version.
   */
  async writeFile(path: string, data: Buffer | string): Promise<SmbStat> {
    const content = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (!splitPath(normalizePath(path)).base) throw new SmbError('INVALID_ARGUMENT', 'writeFile needs a file path');
    const body = (async function* () {
      yield content;
    })();
    return (await this.upload(path, body, async () => 'create-or-replace')).stat;
  }

  /**
   * Writes a streamed body of any size into a file in place, as the user, once `decide` says how the target may be
   * met (upload.ts); returns the stat of the new version and whether the file is new.
   */
  async upload(path: string, chunks: AsyncIterable<Buffer>, decide: () => Promise<CommitMode>): Promise<{ stat: SmbStat; created: boolean }> {
    const p = normalizePath(path);
    const { attributes, fileId, created } = await this.modify((tree) => upload(tree, p, chunks, decide));
    return { stat: toStat(p, splitPath(p).base, attributes, attributes.endOfFile, fileId), created };
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    const p = normalizePath(path);
    if (!p) throw new SmbError('INVALID_ARGUMENT', 'cannot create the share root');
    const parts = p.split('/');
    const targets = options.recursive ? parts.map((_, i) => parts.slice(0, i + 1).join('/')) : [p];
    return this.modify(async (tree) => {
      for (const t of targets) {
        await this.openClose(tree, {
          name: toSmbPath(t),
          desiredAccess: READ_ATTRS,
          disposition: options.recursive ? Disposition.OPEN_IF : Disposition.CREATE,
          createOptions: CreateOptions.DIRECTORY_FILE,
          fileAttributes: FileAttributes.DIRECTORY,
        });
      }
    });
  }

  async rmdir(path: string): Promise<void> {
    return this.deletePath(path, CreateOptions.DIRECTORY_FILE);
  }

  async unlink(path: string): Promise<void> {
    return this.deletePath(path, CreateOptions.NON_DIRECTORY_FILE);
  }

  /** Renames within the share; without `replace` an existing target fails with NAME_COLLISION. */
  async rename(from: string, to: string, options: { replace?: boolean } = {}): Promise<void> {
    const target = toSmbPath(to);
    if (!target) throw new SmbError('INVALID_ARGUMENT', 'rename needs a target path');
    return this.modify((tree) =>
      setInfoByPath(
        tree,
        { name: toSmbPath(from), desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN },
        FileInfoClass.FileRenameInformation,
        renameInfo(target, options.replace ?? false),
      ),
    );
  }

  /** Sets file times (ms since epoch); omitted times stay unchanged. */
  async setTimes(path: string, times: Partial<FileTimes>): Promise<void> {
    return this.modify((tree) =>
      setInfoByPath(
        tree,
        { name: toSmbPath(path), desiredAccess: Access.FILE_WRITE_ATTRIBUTES | READ_ATTRS, disposition: Disposition.OPEN },
        FileInfoClass.FileBasicInformation,
        basicInfo(times),
      ),
    );
  }

  async getSecurity(path: string): Promise<SecurityDescriptor> {
    return this.read((tree) => querySecurity(tree, securityParams(path)));
  }

  /**
   * getSecurity of each of `paths`, in one round trip (one compound message of a chain per file): each path's
   * descriptor, or the status error getSecurity would have thrown for it. An error of the connection or session fails
   * the whole call, as it would each getSecurity.
   */
  async getSecurityOfEach(paths: readonly string[]): Promise<(SecurityDescriptor | SmbStatusError)[]> {
    return this.read((tree) => querySecurityOfEach(tree, paths.map(securityParams)));
  }

  /**
   * A file's security descriptor and its content, of one open in one round trip (CREATE, QUERY_INFO, READ, CLOSE) when
   * the file fits one read (64 KiB); `content` is undefined for a longer file. Access as getSecurity and readFile
   * together: a server that refuses either refuses this.
   */
  async readWithSecurity(path: string): Promise<{ securityDescriptor: SecurityDescriptor; content: Buffer | undefined }> {
    const params = { ...readParams(path, CreateOptions.NON_DIRECTORY_FILE), desiredAccess: Access.FILE_READ_DATA | READ_ATTRS | Access.READ_CONTROL };
    const { securityDescriptor, endOfFile, head } = await afterSaves(() => this.read((tree) => querySecurityAndHead(tree, params)));
    return { securityDescriptor, content: head.length >= endOfFile ? head : undefined };
  }

  /**
   * Writes the parts of `sd` that `info` names (SecurityInformation bits, by default the DACL with its control
   * flags); the server checks WRITE_DAC (DACL) and WRITE_OWNER (owner, group).
   */
  async setSecurity(path: string, sd: SecurityDescriptor, info: number = SecurityInformation.DACL): Promise<void> {
    const access = Access.SYNCHRONIZE | (info & SecurityInformation.DACL ? Access.WRITE_DAC : 0) |
      (info & (SecurityInformation.OWNER | SecurityInformation.GROUP) ? Access.WRITE_OWNER : 0);
    return this.modify((tree) => setSecurityByPath(tree, { name: toSmbPath(path), desiredAccess: access, disposition: Disposition.OPEN }, sd, info));
  }

  private async deletePath(path: string, createOptions: number): Promise<void> {
    const name = toSmbPath(path);
    if (!name) throw new SmbError('INVALID_ARGUMENT', 'cannot delete the share root');
    return this.modify((tree) =>
      setInfoByPath(
        tree,
        { name, desiredAccess: Access.DELETE | READ_ATTRS, disposition: Disposition.OPEN, createOptions },
        FileInfoClass.FileDispositionInformation,
        dispositionInfo(true),
      ),
    );
  }

  private async openClose(tree: Tree, params: CreateParams): Promise<void> {
    const responses = await tree.compound([createRequest(params), closeRequest(RELATED_FILE_ID)]);
    assertStatus(responses[0]!, `CREATE ${tree.shareName}\\${params.name}`);
  }
}

/** Opens a file or folder to read its security descriptor. */
function securityParams(path: string): CreateParams {
  return { name: toSmbPath(path), desiredAccess: Access.READ_CONTROL | Access.SYNCHRONIZE, disposition: Disposition.OPEN };
}

/** Opens a file (`NON_DIRECTORY_FILE`) or a folder (`DIRECTORY_FILE`) to read its data or its members. */
function readParams(path: string, createOptions: number): CreateParams {
  return { name: toSmbPath(path), desiredAccess: Access.FILE_READ_DATA | READ_ATTRS, disposition: Disposition.OPEN, createOptions };
}

/**
 * Runs an operation again when the connection dropped under it: the pool has discarded the connection by then and
 * reconnects (it retries only the operations it knows to be idempotent, with timeouts). A timeout is not retried
 * here, so that an unreachable server costs one connect timeout, not two.
 */
async function onceMore<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (!(err instanceof SmbError && (err.code === 'CONNECTION_CLOSED' || err.code === 'SESSION_EXPIRED'))) throw err;
    return op();
  }
}

/** Waits before each new attempt of a read that met a save's lock: about 2 s in all. */
const SAVE_LOCK_WAITS_MS = [5, 10, 20, 40, 80, 160, 250, 500, 500, 500];

/**
 * Runs a read again while it meets a byte-range lock (LOCK_CONFLICT). A save through `upload` locks the whole file
 * for its two round trips, so that another client's lock is seen before anything is changed; a reader at that
 * moment waits for the new version rather than failing. A lock another program keeps longer still fails the read.
 */
function afterSaves<T>(read: () => Promise<T>): Promise<T> {
  return retryWhileRefused(read, 'LOCK_CONFLICT', SAVE_LOCK_WAITS_MS);
}

/** A file-system client: shares are opened through one pool of connections and sessions. */
export class SmbClient {
  readonly pool: SmbPool;

  constructor(pool: SmbPool = new SmbPool()) {
    this.pool = pool;
  }

  share(options: ShareOptions): SmbShare {
    const { host, port, domain, user, password, workstation, kerberos, share } = options;
    const server = { host, port };
    const credentials = { domain, user, password, workstation, ...(kerberos ? { kerberos } : {}) };
    const key = this.pool.keyOf(server, credentials); // validates the arguments now rather than on first use
    return new SmbShare(() => this.pool.endpointAt(key, server, credentials), share);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
