// Dead properties (RFC 4918 §4): whatever XML a client stores on a resource
// with PROPPATCH. Kept in memory by the dav-state actor and written to one
// JSON file with temp-file-and-rename, so a crash leaves the old or the new
// version, never half of one. Writes that arrive while one is in flight are
// committed together by the next write.
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DavResource, PropertyPatch } from '../messages/dav-state.js';
import { isWithin, resourceKey } from './dav-path.js';
import { clarkName, type XmlElement } from './xml.js';

const FILE_VERSION = 1;

/** Properties of one resource by `{ns}name`. */
type PropertySet = Map<string, XmlElement>;

interface StoredResource {
  share: string;
  path: string;
  properties: Map<string, XmlElement>;
}

interface FileShape {
  version: number;
  resources: { share: string; path: string; properties: XmlElement[] }[];
}


export class DeadProperties {
  private readonly resources = new Map<string, StoredResource>();
  private committed: Promise<void> = Promise.resolve();
  private pending: Promise<void> | undefined;

  private constructor(private readonly file: string | undefined) {}

  /** A store backed by `file` (created on first write), loaded now. */
  static async open(file: string): Promise<DeadProperties> {
    const store = new DeadProperties(file);
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text !== undefined) store.load(parseStoreFile(text, file), file);
    return store;
  }

  /** Resolves when every change so far is on disk (or its write failed). */
  settled(): Promise<void> {
    return this.committed.catch(() => undefined);
  }

  /** A store that keeps nothing on disk (unit tests). */
  static inMemory(): DeadProperties {
    return new DeadProperties(undefined);
  }

  /** How many resources carry at least one dead property. */
  get size(): number {
    return this.resources.size;
  }

  get(resource: DavResource): XmlElement[] {
    return [...(this.resources.get(resourceKey(resource))?.properties.values() ?? [])];
  }

  /** All patches in document order, or none when one fails validation (callers validate first). */
  async patch(resource: DavResource, patches: readonly PropertyPatch[]): Promise<void> {
    const key = resourceKey(resource);
    const entry = this.resources.get(key) ?? { share: resource.share, path: resource.path, properties: new Map() };
    const next: PropertySet = new Map(entry.properties);
    for (const p of patches) {
      if ('set' in p) next.set(clarkName(p.set.ns, p.set.name), p.set);
      else next.delete(clarkName(p.remove.ns, p.remove.name));
    }
    if (next.size === 0) this.resources.delete(key);
    else this.resources.set(key, { ...entry, properties: next });
    await this.save();
  }

  /** Drops the properties of the resource and of everything below it. */
  async remove(resource: DavResource): Promise<void> {
    if (this.dropBelow(resource).length > 0) await this.save();
  }

  async move(from: DavResource, to: DavResource): Promise<void> {
    const replaced = this.dropBelow(to);
    const moved = this.dropBelow(from);
    for (const e of moved) this.put(to.share, to.path + e.path.slice(from.path.length), e.properties);
    if (replaced.length + moved.length > 0) await this.save();
  }

  async copy(from: DavResource, to: DavResource, depth: '0' | 'infinity'): Promise<void> {
    const replaced = this.dropBelow(to);
    const copied = depth === '0'
      ? [this.resources.get(resourceKey(from))].filter((e) => e !== undefined)
      : this.within(from);
    for (const e of copied) this.put(to.share, to.path + e.path.slice(from.path.length), new Map(e.properties));
    if (replaced.length + copied.length > 0) await this.save();
  }

  private within(resource: DavResource): StoredResource[] {
    const share = resource.share.toLowerCase();
    return [...this.resources.values()].filter((e) => e.share.toLowerCase() === share && isWithin(e.path, resource.path));
  }

  private dropBelow(resource: DavResource): StoredResource[] {
    const gone = this.within(resource);
    for (const e of gone) this.resources.delete(resourceKey(e));
    return gone;
  }

  private put(share: string, path: string, properties: PropertySet): void {
    this.resources.set(resourceKey({ share, path }), { share, path, properties });
  }

  private load(data: FileShape, file: string): void {
    if (data.version !== FILE_VERSION || !Array.isArray(data.resources)) {
      throw new Error(`${file}: not a dead-property store of version ${FILE_VERSION}`);
    }
    for (const r of data.resources) {
      this.put(r.share, r.path, new Map(r.properties.map((p) => [clarkName(p.ns, p.name), p])));
    }
  }

  /** Resolves once a write that includes the current state is on disk. */
  private save(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    // One write in flight; everything changed meanwhile goes into the next one.
    this.pending ??= this.committed.catch(() => undefined).then(() => {
      this.pending = undefined;
      return writeAtomically(file, JSON.stringify(this.snapshot()));
    });
    this.committed = this.pending;
    return this.pending;
  }

  private snapshot(): FileShape {
    return {
      version: FILE_VERSION,
      resources: [...this.resources.values()].map((e) => ({ share: e.share, path: e.path, properties: [...e.properties.values()] })),
    };
  }
}

function parseStoreFile(text: string, file: string): FileShape {
  try {
    return JSON.parse(text) as FileShape;
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); restore it from a backup or move it away`);
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
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
}
