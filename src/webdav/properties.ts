// Live properties (RFC 4918 §15): computed from what SMB reports about a
// file or folder and from the locks on it. None of them can be set.
import { hrefOf, type DavResource } from './dav-path.js';
import { etagOf } from './etag.js';
import type { ActiveLock } from './locks.js';
import { contentTypeOf } from './mime.js';
import type { PropertyName } from './requests.js';
import { DAV_NS, dav, type XmlElement } from './xml.js';

/** What PROPFIND needs beyond SMB: active locks and dead properties. */
export interface ResourceState {
  locks: ActiveLock[];
  properties: XmlElement[];
}

/** A file or folder as PROPFIND describes it. */
export interface DavEntry {
  share: string;
  /** Share-relative path ('' for the share root). */
  path: string;
  name: string;
  isCollection: boolean;
  size: number;
  fileId: string;
  mtimeMs: number;
  birthtimeMs: number;
}

const LIVE_PROPERTIES = [
  'creationdate', 'displayname', 'getcontentlength', 'getcontenttype', 'getetag', 'getlastmodified',
  'lockdiscovery', 'resourcetype', 'supportedlock',
] as const;

export function isLiveProperty(p: PropertyName): boolean {
  return p.ns === DAV_NS && (LIVE_PROPERTIES as readonly string[]).includes(p.name);
}

export function entryEtag(e: DavEntry): string {
  return etagOf(e.fileId, e.size, e.mtimeMs);
}

/** The names of the live properties the entry has. */
export function liveNames(e: DavEntry): PropertyName[] {
  return LIVE_PROPERTIES.filter((n) => !e.isCollection || !FILE_ONLY.has(n)).map((name) => ({ ns: DAV_NS, name }));
}

const FILE_ONLY = new Set<string>(['getcontentlength', 'getcontenttype', 'getetag']);

/** The live property `name` of the entry, or undefined when it has none of that name. */
export function liveProperty(e: DavEntry, name: string, locks: readonly ActiveLock[]): XmlElement | undefined {
  if (e.isCollection && FILE_ONLY.has(name)) return undefined;
  switch (name) {
    case 'creationdate': return dav(name, [isoDate(e.birthtimeMs)]);
    case 'displayname': return dav(name, [e.path === '' ? e.share : e.name]);
    case 'getcontentlength': return dav(name, [String(e.size)]);
    case 'getcontenttype': return dav(name, [contentTypeOf(e.name)]);
    case 'getetag': return dav(name, [entryEtag(e)]);
    case 'getlastmodified': return dav(name, [new Date(e.mtimeMs).toUTCString()]);
    case 'lockdiscovery': return lockDiscovery(locks);
    case 'resourcetype': return dav(name, e.isCollection ? [dav('collection')] : []);
    case 'supportedlock': return dav(name, ['exclusive', 'shared'].map((scope) => dav('lockentry', [
      dav('lockscope', [dav(scope)]),
      dav('locktype', [dav('write')]),
    ])));
    default: return undefined;
  }
}

export function lockDiscovery(locks: readonly ActiveLock[]): XmlElement {
  return dav('lockdiscovery', locks.map(activeLock));
}

function activeLock(l: ActiveLock): XmlElement {
  return dav('activelock', [
    dav('locktype', [dav('write')]),
    dav('lockscope', [dav(l.scope)]),
    dav('depth', [l.depth]),
    ...(l.owner ? [l.owner] : []),
    dav('timeout', [`Second-${l.timeoutSeconds}`]),
    dav('locktoken', [dav('href', [l.token])]),
    dav('lockroot', [dav('href', [hrefOf(l.root.share, l.root.path, false)])]),
  ]);
}

/** ISO 8601 without fractions, as RFC 4918 §15.1 shows creationdate. */
function isoDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What the WebDAV methods ask of the thread that keeps locks and dead properties about whole resources. */
export interface ResourceStateKeeper {
  /** Locks and dead properties of each resource; null where there are none. */
  describe(resources: DavResource[], what: { locks: boolean; properties: boolean }): Promise<(ResourceState | null)[]>;
  /** The resource (and everything below) is gone: drop its properties and locks. */
  removed(resource: DavResource): Promise<void>;
  /** Properties follow a MOVE; locks on the source are dropped. */
  moved(from: DavResource, to: DavResource): Promise<void>;
}
