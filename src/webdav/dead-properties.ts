// Dead properties (RFC 4918 §4): whatever XML a client stores on a resource
// with PROPPATCH. Kept in memory by the dav-state actor, bounded per resource
// and in total, and on disk as a log: one JSON line per changed resource with
// its whole property set after the change (none when it has lost them all),
// so a change costs an append of that resource, not a rewrite of the store.
// An append is fsynced before the change resolves; changes that arrive while
// one is in flight go into the next (group commit). Once the log is twice the
// live data (and at least COMPACT_MIN_BYTES) it is rewritten from memory with
// temp-file-and-rename. A crash can leave a torn last line; it was never
// acknowledged and is dropped at the next open.
import { mkdir, open, readFile, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isWithin, resourceKey, type DavResource } from './dav-path.js';
import { clarkName, storedSize, type XmlElement } from './xml.js';

const LOG_NAME = 'dav-properties.log';
/** The store of version 1, one JSON document rewritten whole on every change; taken over at the first open. */
const LEGACY_NAME = 'dav-properties.json';
const LOG_VERSION = 2;
/** A smaller log is never compacted: its rewrite would cost more than it saves. */
const COMPACT_MIN_BYTES = 1024 * 1024;
/** A compaction writes in pieces of about this many characters. */
const COMPACT_CHUNK = 1024 * 1024;

export type PropertyPatch = { set: XmlElement } | { remove: { ns: string; name: string } };

/** The key under webdav.dead_properties whose bound a change would pass. */
export type PropertyLimit = 'max_per_resource' | 'max_resource_size' | 'max_total_size';

export interface PropertyLimits {
  maxPerResource: number;
  /** Bytes of one resource's properties as stored (see storedSize). */
  maxResourceSize: number;
  maxTotalSize: number;
}

const UNLIMITED: PropertyLimits = { maxPerResource: Infinity, maxResourceSize: Infinity, maxTotalSize: Infinity };

/** Properties of one resource by `{ns}name`. */
type PropertySet = Map<string, XmlElement>;

interface StoredResource {
  share: string;
  path: string;
  properties: PropertySet;
  /** storedSize of all its properties. */
  bytes: number;
}

/** One line of the log: a resource's properties after a change. */
interface LogRecord {
  share: string;
  path: string;
  properties: XmlElement[];
}

export class DeadProperties {
  private readonly resources = new Map<string, StoredResource>();
  private totalBytes = 0;
  /** Lines changed since the last append began. */
  private queued: string[] = [];
  private committed: Promise<void> = Promise.resolve();
  private pending: Promise<void> | undefined;
  private log: FileHandle | undefined;
  private logBytes = 0;
  /** An append failed part-way: the next write rewrites the log from memory instead. */
  private damaged = false;

  private constructor(private readonly file: string | undefined, private readonly limits: PropertyLimits) {}

  /** The store in `dir` (created on first use), loaded now; a version-1 store there is taken over. */
  static async open(dir: string, limits: PropertyLimits = UNLIMITED): Promise<DeadProperties> {
    const store = new DeadProperties(join(dir, LOG_NAME), limits);
    await mkdir(dir, { recursive: true });
    const text = await readIfExists(store.file!);
    if (text !== undefined) {
      await store.replay(text);
    } else {
      const legacy = join(dir, LEGACY_NAME);
      const old = await readIfExists(legacy);
      if (old !== undefined) store.loadLegacy(old, legacy);
      await store.compact();
      if (old !== undefined) await unlink(legacy);
    }
    store.log = await open(store.file!, 'a');
    return store;
  }

  /** A store that keeps nothing on disk (unit tests). */
  static inMemory(limits: PropertyLimits = UNLIMITED): DeadProperties {
    return new DeadProperties(undefined, limits);
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

  /** Bytes of all properties as stored. */
  get bytes(): number {
    return this.totalBytes;
  }

  get(resource: DavResource): XmlElement[] {
    return [...(this.resources.get(resourceKey(resource))?.properties.values() ?? [])];
  }

  /**
   * All patches in document order, or none: none when one fails validation (callers validate first) or when the
   * result would pass a limit that it also grows towards (so that a resource over a lowered limit can shrink).
   */
  async patch(resource: DavResource, patches: readonly PropertyPatch[]): Promise<PropertyLimit | undefined> {
    const entry = this.resources.get(resourceKey(resource));
    const next: PropertySet = new Map(entry?.properties);
    for (const p of patches) {
      if ('set' in p) next.set(clarkName(p.set.ns, p.set.name), p.set);
      else next.delete(clarkName(p.remove.ns, p.remove.name));
    }
    const bytes = sizeOf(next);
    const before = { count: entry?.properties.size ?? 0, bytes: entry?.bytes ?? 0 };
    const { maxPerResource, maxResourceSize, maxTotalSize } = this.limits;
    if (next.size > maxPerResource && next.size > before.count) return 'max_per_resource';
    if (bytes > before.bytes) {
      if (bytes > maxResourceSize) return 'max_resource_size';
      if (this.totalBytes - before.bytes + bytes > maxTotalSize) return 'max_total_size';
    }
    await this.save([this.put(resource.share, resource.path, next)]);
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
    for (const e of moved) lines.push(this.put(to.share, to.path + e.path.slice(from.path.length), e.properties));
    await this.save(lines);
  }

  /** Properties follow a copy unless that would pass max_total_size (RFC 4918 §9.8.2 asks it as a SHOULD); then none do. */
  async copy(from: DavResource, to: DavResource, depth: '0' | 'infinity'): Promise<PropertyLimit | undefined> {
    const lines = this.dropBelow(to);
    const copied = depth === '0' ? [this.resources.get(resourceKey(from))].filter((e) => e !== undefined) : this.within(from);
    const added = copied.reduce((n, e) => n + e.bytes, 0);
    const refused = added > 0 && this.totalBytes + added > this.limits.maxTotalSize;
    if (!refused) for (const e of copied) lines.push(this.put(to.share, to.path + e.path.slice(from.path.length), new Map(e.properties)));
    await this.save(lines);
    return refused ? 'max_total_size' : undefined;
  }

  private within(resource: DavResource): StoredResource[] {
    const share = resource.share.toLowerCase();
    return [...this.resources.values()].filter((e) => e.share.toLowerCase() === share && isWithin(e.path, resource.path));
  }

  /** Drops the resources at and below `resource`; returns their log lines. */
  private dropBelow(resource: DavResource): string[] {
    return this.within(resource).map((e) => this.put(e.share, e.path, new Map()));
  }

  /** Sets (or with no properties drops) a resource in memory; returns its log line. */
  private put(share: string, path: string, properties: PropertySet): string {
    const key = resourceKey({ share, path });
    this.totalBytes -= this.resources.get(key)?.bytes ?? 0;
    if (properties.size === 0) {
      this.resources.delete(key);
    } else {
      const bytes = sizeOf(properties);
      this.resources.set(key, { share, path, properties, bytes });
      this.totalBytes += bytes;
    }
    return logLine(share, path, properties);
  }

  /** Applies the log's lines; a torn last line (a crash during its append) is cut off the file. */
  private async replay(text: string): Promise<void> {
    const file = this.file!;
    const end = text.lastIndexOf('\n') + 1;
    const lines = text.slice(0, end).split('\n').slice(0, -1);
    const header = parseLine(lines[0] ?? '', file, 1) as { version?: unknown };
    if (header.version !== LOG_VERSION) throw new Error(`${file}: not a dead-property log of version ${LOG_VERSION}`);
    lines.slice(1).forEach((line, i) => {
      const r = parseLine(line, file, i + 2) as LogRecord;
      this.put(r.share, r.path, propertySet(r.properties));
    });
    this.logBytes = Buffer.byteLength(text.slice(0, end));
    if (end < text.length) await truncate(file, this.logBytes);
  }

  private loadLegacy(text: string, file: string): void {
    const data = parseLine(text, file, 1) as { version?: unknown; resources?: LogRecord[] };
    if (data.version !== 1 || !Array.isArray(data.resources)) throw new Error(`${file}: not a dead-property store of version 1`);
    for (const r of data.resources) this.put(r.share, r.path, propertySet(r.properties));
  }

  /** Resolves once a write that includes `lines` is on disk. */
  private save(lines: string[]): Promise<void> {
    if (this.file === undefined || lines.length === 0) return Promise.resolve();
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
    if (this.damaged || (this.logBytes > COMPACT_MIN_BYTES && this.logBytes > 2 * this.totalBytes)) return this.compact();
    const data = Buffer.from(batch, 'utf8');
    try {
      await this.log!.write(data);
      await this.log!.datasync();
    } catch (err) {
      this.damaged = true;
      throw err;
    }
    this.logBytes += data.length;
  }

  /** Rewrites the log from memory: temporary file, fsync, rename over the log, fsync of the folder. */
  private async compact(): Promise<void> {
    const file = this.file!;
    const temp = `${file}.${process.pid}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    let bytes = 0;
    try {
      let chunk = [`${JSON.stringify({ version: LOG_VERSION })}\n`];
      let chunkLength = 0;
      const flush = async () => {
        const data = Buffer.from(chunk.join(''), 'utf8');
        await handle.write(data);
        bytes += data.length;
        chunk = [];
        chunkLength = 0;
      };
      for (const e of this.resources.values()) {
        const line = logLine(e.share, e.path, e.properties);
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

function logLine(share: string, path: string, properties: PropertySet): string {
  return `${JSON.stringify({ share, path, properties: [...properties.values()] } satisfies LogRecord)}\n`;
}

function propertySet(properties: readonly XmlElement[]): PropertySet {
  return new Map(properties.map((p) => [clarkName(p.ns, p.name), p]));
}

function sizeOf(properties: PropertySet): number {
  let bytes = 0;
  for (const p of properties.values()) bytes += storedSize(p);
  return bytes;
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
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}:${line} is not valid JSON (${(err as Error).message}); restore the file from a backup or move it away`);
  }
}
