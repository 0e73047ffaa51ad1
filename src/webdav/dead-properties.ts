// Dead properties (RFC 4918 §4): whatever XML a client stores on a resource
// with PROPPATCH. Kept in memory by the dav-state actor, bounded per resource,
// per user (the one who set a property) and in total, and on disk as a log:
// one JSON line per changed resource with its whole property set after the
// change (none when it has lost them all), so a change costs an append of that
// resource, not a rewrite of the store. An append is written whole and fsynced
// before the change resolves (a short write is continued; a failed one fails
// the change); changes that arrive while one is in flight go into the next
// (group commit). Once the log is twice the live data (and at least
// COMPACT_MIN_BYTES) it is rewritten from memory with temp-file-and-rename.
// A crash can leave a torn tail (a cut line, or lines of garbage or zeros
// where the file system had not written the data yet); it was never
// acknowledged, and the next open keeps every whole record before it and
// drops the tail.
// A resource's properties keep the identity of the file they were set on
// (file id and creation time), so that a sweep, asking the file server, drops
// them once the file is gone, renamed or replaced behind the proxy's back.
// In memory a property is its JSON text, not a tree of objects, and the
// per-user and total budgets count what it takes there (memoryCost).
import { mkdir, open, readFile, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isWithin, resourceKey, type DavResource } from './dav-path.js';
import type { LockDepth } from './locks.js';
import { copyRefusal, costOf, memoryCost, patched, patchRefusal, propertySet, sizeOf, type PropertyLimit, type PropertyLimits, type PropertyPatch, type PropertySet } from './property-budget.js';
import type { PropertyStore } from './property-store.js';
import type { XmlElement } from './xml.js';

const LOG_NAME = 'dav-properties.log';
/** The store of version 1, one JSON document rewritten whole on every change; taken over at the first open. */
const LEGACY_NAME = 'dav-properties.json';
const LOG_VERSION = 2;
/** A smaller log is never compacted: its rewrite would cost more than it saves. */
const COMPACT_MIN_BYTES = 1024 * 1024;
/** A compaction writes in pieces of about this many characters. */
const COMPACT_CHUNK = 1024 * 1024;
const HEADER = `${JSON.stringify({ version: LOG_VERSION })}\n`;

const UNLIMITED: PropertyLimits = { maxPerResource: Infinity, maxResourceSize: Infinity, maxUserSize: Infinity, maxTotalSize: Infinity };

interface StoredResource {
  share: string;
  path: string;
  /** fileIdentity of the file they were set on; undefined until a sweep finds it (a COPY's target, older logs). */
  file: string | undefined;
  properties: PropertySet;
  /** storedSize of all its properties. */
  bytes: number;
}

/** One line of the log: a resource's properties after a change, and who set each (absent in older logs). */
interface LogRecord {
  share: string;
  path: string;
  file?: string;
  properties: XmlElement[];
  owners?: string[];
}

/** Which file a path names: its file id and creation time (a file id alone may come back for a new file). */
export function fileIdentity(entry: { fileId: string; birthtimeMs: number }): string {
  return `${entry.fileId}@${entry.birthtimeMs}`;
}

export class DeadProperties implements PropertyStore {
  private readonly resources = new Map<string, StoredResource>();
  /** memoryCost of all properties, and of each user's. */
  private totalBytes = 0;
  /** storedSize of all properties: about what the log needs for them (the measure of when to compact). */
  private storedBytes = 0;
  /** By owner; `name` is the one string of that owner every property of theirs shares. */
  private readonly users = new Map<string, { name: string; bytes: number }>();
  /** Lines changed since the last append began. */
  private queued: string[] = [];
  private committed: Promise<void> = Promise.resolve();
  private pending: Promise<void> | undefined;
  private log: FileHandle | undefined;
  private logBytes = 0;
  /** An append failed part-way: the next write rewrites the log from memory instead. */
  private damaged = false;

  private constructor(private readonly file: string, private readonly limits: PropertyLimits) {}

  /** The store in `dir` (created on first use), loaded now; a version-1 store there is taken over. */
  static async open(dir: string, limits: PropertyLimits = UNLIMITED): Promise<DeadProperties> {
    const store = new DeadProperties(join(dir, LOG_NAME), limits);
    await mkdir(dir, { recursive: true });
    const text = await readIfExists(store.file);
    if (text !== undefined) {
      await store.replay(text);
    } else {
      const legacy = join(dir, LEGACY_NAME);
      const old = await readIfExists(legacy);
      if (old !== undefined) store.loadLegacy(old, legacy);
      await store.compact();
      if (old !== undefined) await unlink(legacy);
    }
    store.log = await open(store.file, 'a');
    return store;
  }

  /** Resolves when every change so far is on disk (or its write failed). */
  settled(): Promise<void> {
    return this.committed.catch(() => undefined);
  }

  /** Waits for the last write and closes the log. */
  async close(): Promise<void> {
    await this.settled();
    await this.log?.close();
    this.log = undefined;
  }

  /** How many resources carry at least one dead property. */
  get size(): number {
    return this.resources.size;
  }

  /** What all properties take in memory (memoryCost), the figure max_total_size bounds. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** What the properties `owner` set take in memory, the figure max_user_size bounds. */
  bytesOf(owner: string): number {
    return this.users.get(owner)?.bytes ?? 0;
  }

  async getMany(resources: readonly DavResource[]): Promise<XmlElement[][]> {
    return resources.map((r) => this.get(r));
  }

  get(resource: DavResource): XmlElement[] {
    const entry = this.resources.get(resourceKey(resource));
    return entry ? [...entry.properties.values()].map((p) => JSON.parse(p.json) as XmlElement) : [];
  }

  /**
   * All patches in document order, set by `owner` on `file` (its fileIdentity), or none: none when one fails validation (callers validate first)
   * or when the result would pass a limit that it also grows towards (so that a resource over a lowered limit can
   * shrink).
   */
  async patch(resource: DavResource, patches: readonly PropertyPatch[], owner: string, file?: string): Promise<PropertyLimit | undefined> {
    const entry = this.resources.get(resourceKey(resource));
    const next = patched(entry?.properties, patches, owner);
    const refused = patchRefusal(this.limits, resource, entry?.properties, next, owner, { user: this.bytesOf(owner), total: this.totalBytes });
    if (refused !== undefined) return refused;
    await this.save([this.put(resource.share, resource.path, next, file ?? entry?.file)]);
    return undefined;
  }

  /** Drops the properties of the resource and of everything below it. */
  async remove(resource: DavResource): Promise<void> {
    await this.save(this.dropBelow(resource));
  }

  async move(from: DavResource, to: DavResource): Promise<void> {
    const replaced = this.dropBelow(to);
    const moved = this.within(from);
    const lines = [...replaced, ...this.dropBelow(from)];
    for (const e of moved) lines.push(this.put(to.share, to.path + e.path.slice(from.path.length), e.properties, e.file));
    await this.save(lines);
  }

  /**
   * Properties follow a copy, as set by `owner` (who made them), unless that would pass max_user_size or
   * max_total_size (RFC 4918 §9.8.2 asks it as a SHOULD); then none do.
   */
  async copy(from: DavResource, to: DavResource, depth: '0' | 'infinity', owner: string): Promise<PropertyLimit | undefined> {
    const lines = this.dropBelow(to);
    const copied = depth === '0' ? [this.resources.get(resourceKey(from))].filter((e) => e !== undefined) : this.within(from);
    const targets = copied.map((e) => ({
      path: to.path + e.path.slice(from.path.length),
      properties: new Map([...e.properties].map(([name, p]) => [name, { json: p.json, owner }])),
    }));
    const added = targets.reduce((n, t) => n + costOf(to.share, t.path, t.properties), 0);
    const refused = copyRefusal(this.limits, added, { user: this.bytesOf(owner), total: this.totalBytes });
    if (refused === undefined) for (const t of targets) lines.push(this.put(to.share, t.path, t.properties, undefined));
    await this.save(lines);
    return refused;
  }

  private within(resource: DavResource): StoredResource[] {
    const share = resource.share.toLowerCase();
    return [...this.resources.values()].filter((e) => e.share.toLowerCase() === share && isWithin(e.path, resource.path));
  }

  /** Drops the resources at and below `resource`; returns their log lines. */
  private dropBelow(resource: DavResource): string[] {
    return this.within(resource).map((e) => this.put(e.share, e.path, new Map(), undefined));
  }

  /**
   * Drops the properties of resources whose file the file server no longer has at their path, or has replaced
   * (deleted, renamed or replaced over SMB, behind the proxy's back). `identityAt` says what is there now: its
   * fileIdentity, null for nothing, undefined when it cannot tell (the properties stay). A resource without a file
   * identity takes the one found. Returns how many resources lost their properties.
   */
  async sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    const lines: string[] = [];
    let dropped = 0;
    for (const e of [...this.resources.values()]) {
      const now = await identityAt(e);
      // Changed through the proxy meanwhile: that change knew better.
      if (now === undefined || this.resources.get(resourceKey(e)) !== e) continue;
      if (now === null || (e.file !== undefined && e.file !== now)) {
        lines.push(this.put(e.share, e.path, new Map(), undefined));
        dropped++;
      } else if (e.file === undefined) {
        lines.push(this.put(e.share, e.path, e.properties, now));
      }
    }
    await this.save(lines);
    return dropped;
  }

  /** Sets (or with no properties drops) a resource in memory; returns its log line. */
  private put(share: string, path: string, properties: PropertySet, file: string | undefined): string {
    const key = resourceKey({ share, path });
    const old = this.resources.get(key);
    if (old) {
      this.account(old.share, old.path, old.properties, -1);
      this.storedBytes -= old.bytes;
    }
    if (properties.size === 0) {
      this.resources.delete(key);
    } else {
      const bytes = sizeOf(properties);
      this.resources.set(key, { share, path, file, properties, bytes });
      this.storedBytes += bytes;
      this.account(share, path, properties, 1);
    }
    return logLine(share, path, file, properties);
  }

  private account(share: string, path: string, properties: PropertySet, sign: 1 | -1): void {
    for (const [name, p] of properties) {
      const cost = memoryCost(share, path, name, p);
      this.totalBytes += sign * cost;
      let user = this.users.get(p.owner);
      if (user === undefined) this.users.set(p.owner, user = { name: p.owner, bytes: 0 });
      // One string per user, however many requests named them.
      p.owner = user.name;
      user.bytes += sign * cost;
      if (user.bytes === 0) this.users.delete(p.owner);
    }
  }

  /**
   * Applies the log's whole records. What follows the last of them is a torn tail (never acknowledged: a cut line,
   * or garbage or zeros the file system had not yet filled) and is cut off the file; a damaged line with a whole
   * record after it is no crash's doing, and the store refuses to open.
   */
  private async replay(text: string): Promise<void> {
    const file = this.file;
    const lines = text.split('\n');
    const records: unknown[] = [];
    let whole = 0;
    let damaged: { line: number; error: Error } | undefined;
    let offset = 0;
    lines.forEach((line, i) => {
      const end = offset + Buffer.byteLength(line) + 1;
      offset = end;
      // The last piece has no newline after it: a record only if the newline was written too.
      const record = i < lines.length - 1 ? parseRecord(line, i === 0) : undefined;
      if (record === undefined || record instanceof Error) {
        damaged ??= { line: i + 1, error: record ?? new Error('no newline at its end') };
        return;
      }
      if (damaged) throw new Error(`${file}:${damaged.line} is not valid JSON (${damaged.error.message}); restore the file from a backup or move it away`);
      records.push(record);
      whole = end;
    });
    const [header, ...rest] = records;
    if (header === undefined) {
      // Not even the header is whole: a store cut while it was first written is empty; anything else is not ours.
      if (!HEADER.startsWith(text.replace(/[\0\s]+$/, ''))) throw new Error(`${file}: not a dead-property log of version ${LOG_VERSION}`);
      await this.compact();
      return;
    }
    if ((header as { version?: unknown }).version !== LOG_VERSION) throw new Error(`${file}: not a dead-property log of version ${LOG_VERSION}`);
    for (const r of rest as LogRecord[]) this.put(r.share, r.path, propertySet(r.properties, r.owners), r.file);
    this.logBytes = whole;
    if (whole < Buffer.byteLength(text)) await truncate(file, whole);
  }

  private loadLegacy(text: string, file: string): void {
    const data = parseLine(text, file, 1) as { version?: unknown; resources?: LogRecord[] };
    if (data.version !== 1 || !Array.isArray(data.resources)) throw new Error(`${file}: not a dead-property store of version 1`);
    for (const r of data.resources) this.put(r.share, r.path, propertySet(r.properties, undefined), undefined);
  }

  /** Resolves once a write that includes `lines` is on disk. */
  private save(lines: string[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    this.queued.push(...lines);
    // One write in flight; everything changed meanwhile goes into the next one.
    this.pending ??= this.committed.catch(() => undefined).then(() => {
      this.pending = undefined;
      const batch = this.queued.join('');
      this.queued = [];
      return this.write(batch);
    });
    this.committed = this.pending;
    return this.pending;
  }

  private async write(batch: string): Promise<void> {
    if (this.damaged || (this.logBytes > COMPACT_MIN_BYTES && this.logBytes > 2 * this.storedBytes)) return this.compact();
    const data = Buffer.from(batch, 'utf8');
    try {
      await writeAll(this.log!, data);
      await this.log!.datasync();
    } catch (err) {
      this.damaged = true;
      throw err;
    }
    this.logBytes += data.length;
  }

  /** Rewrites the log from memory: temporary file, fsync, rename over the log, fsync of the folder. */
  private async compact(): Promise<void> {
    const file = this.file;
    const temp = `${file}.${process.pid}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    let bytes = 0;
    try {
      let chunk = [HEADER];
      let chunkLength = 0;
      const flush = async () => {
        const data = Buffer.from(chunk.join(''), 'utf8');
        await writeAll(handle, data);
        bytes += data.length;
        chunk = [];
        chunkLength = 0;
      };
      for (const e of this.resources.values()) {
        const line = logLine(e.share, e.path, e.file, e.properties);
        chunk.push(line);
        chunkLength += line.length;
        if (chunkLength >= COMPACT_CHUNK) await flush();
      }
      await flush();
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    const dir = await open(dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    if (this.log) {
      // The open handle still points at the replaced file.
      await this.log.close();
      this.log = await open(file, 'a');
    }
    this.logBytes = bytes;
    this.damaged = false;
  }
}

/** The log line of a resource, made from the properties' JSON as kept (no parse and stringify again). */
function logLine(share: string, path: string, file: string | undefined, properties: PropertySet): string {
  const all = [...properties.values()];
  const where = JSON.stringify({ share, path, ...(file === undefined || properties.size === 0 ? {} : { file }) }).slice(0, -1);
  return `${where},"properties":[${all.map((p) => p.json).join(',')}],"owners":${JSON.stringify(all.map((p) => p.owner))}}\n`;
}






/** Writes all of `data` (a write may take less than asked: the rest is written after it), or throws. */
async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length;) {
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    if (bytesWritten === 0) throw new Error('the file system accepted no more bytes');
    done += bytesWritten;
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parseLine(text: string, file: string, line: number): unknown {
  const parsed = parseRecord(text, true);
  if (parsed instanceof Error) throw new Error(`${file}:${line} is not valid JSON (${parsed.message}); restore the file from a backup or move it away`);
  return parsed;
}

/** A line's record (or the header's object), or why it is none. */
function parseRecord(text: string, header: boolean): object | Error {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return err as Error;
  }
  if (typeof value !== 'object' || value === null) return new Error('not a JSON object');
  const r = value as Partial<LogRecord>;
  if (header || (typeof r.share === 'string' && typeof r.path === 'string' && Array.isArray(r.properties))) return value;
  return new Error('not a record of a resource');
}

/** What the WebDAV methods ask of the thread that keeps the dead properties (the dav-state actor serves it). */
export interface PropertyKeeper {
  /**
   * Applies all patches in order, set by `principal` on `file` (the fileIdentity the front saw), or none (then it
   * names the limit they would pass); stored durably before it resolves, and rejected when that write failed.
   */
  patchProperties(resource: DavResource, patches: PropertyPatch[], principal: string, file: string): Promise<PropertyLimit | undefined>;
  /**
   * Properties follow a COPY (the resource only, or everything below with depth infinity) as set by `principal`,
   * unless that passes max_user_size or max_total_size.
   */
  copied(from: DavResource, to: DavResource, depth: LockDepth, principal: string): Promise<PropertyLimit | undefined>;
}
