// What WebDAV requests ask for, read from their XML bodies and headers
// (RFC 4918 §9, §10, §14). Everything malformed throws DavRequestError, which
// the dispatch layer answers with 400.
import type { PropertyPatch } from './property-budget.js';
import type { LockDepth, LockScope } from './locks.js';
import { DAV_NS, childElements, is, parseXml, type XmlElement } from './xml.js';

export class DavRequestError extends Error {
  override readonly name = 'DavRequestError';
}

export interface PropertyName {
  ns: string;
  name: string;
}

export type PropfindRequest =
  | { kind: 'allprop'; include: PropertyName[] }
  | { kind: 'propname' }
  | { kind: 'prop'; names: PropertyName[] };

/** An empty body means allprop (RFC 4918 §9.1). Unknown elements are ignored, as the RFC asks. */
export function parsePropfind(body: Buffer): PropfindRequest {
  if (isEmpty(body)) return { kind: 'allprop', include: [] };
  const root = parseRoot(body, 'propfind');
  const children = childElements(root).filter((c) => c.ns === DAV_NS);
  const prop = children.find((c) => c.name === 'prop');
  if (prop) return { kind: 'prop', names: childElements(prop).map(nameOf) };
  if (children.some((c) => c.name === 'propname')) return { kind: 'propname' };
  if (children.some((c) => c.name === 'allprop')) {
    const include = children.find((c) => c.name === 'include');
    return { kind: 'allprop', include: include ? childElements(include).map(nameOf) : [] };
  }
  throw new DavRequestError('propfind must contain prop, propname or allprop');
}

/** set and remove instructions in document order (RFC 4918 §9.2). */
export function parsePropertyUpdate(body: Buffer): PropertyPatch[] {
  const root = parseRoot(body, 'propertyupdate');
  const patches: PropertyPatch[] = [];
  for (const instruction of childElements(root)) {
    if (instruction.ns !== DAV_NS || (instruction.name !== 'set' && instruction.name !== 'remove')) continue;
    for (const prop of childElements(instruction).filter((c) => is(c, DAV_NS, 'prop'))) {
      for (const p of childElements(prop)) {
        patches.push(instruction.name === 'set' ? { set: p } : { remove: nameOf(p) });
      }
    }
  }
  if (patches.length === 0) throw new DavRequestError('propertyupdate names no property to set or remove');
  return patches;
}

interface LockInfo {
  scope: LockScope;
  owner?: XmlElement;
}

/** The body of a LOCK that creates a lock; a refresh has no body. */
export function parseLockInfo(body: Buffer): LockInfo {
  const root = parseRoot(body, 'lockinfo');
  const children = childElements(root);
  const lockscope = children.find((c) => is(c, DAV_NS, 'lockscope'));
  const scope = lockscope && childElements(lockscope).find((c) => is(c, DAV_NS, 'exclusive') || is(c, DAV_NS, 'shared'));
  if (!scope) throw new DavRequestError('lockinfo needs a lockscope of exclusive or shared');
  const type = children.find((c) => is(c, DAV_NS, 'locktype'));
  if (!type || !childElements(type).some((c) => is(c, DAV_NS, 'write'))) throw new DavRequestError('only write locks exist (locktype write)');
  const owner = children.find((c) => is(c, DAV_NS, 'owner'));
  return { scope: scope.name as LockScope, ...(owner ? { owner } : {}) };
}

export function isEmpty(body: Buffer): boolean {
  return body.length === 0 || body.toString('utf8').trim() === '';
}

function parseRoot(body: Buffer, name: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (err) {
    throw new DavRequestError((err as Error).message);
  }
  if (!is(root, DAV_NS, name)) throw new DavRequestError(`the body must be a DAV: ${name} element, not {${root.ns}}${root.name}`);
  return root;
}

function nameOf(el: XmlElement): PropertyName {
  return { ns: el.ns, name: el.name };
}

// ---- headers ----

/** Depth: 0, 1 or infinity; `fallback` when absent. */
export function parseDepth(header: string | undefined, fallback: '0' | '1' | 'infinity'): '0' | '1' | 'infinity' {
  if (header === undefined) return fallback;
  const value = header.trim().toLowerCase();
  if (value === '0' || value === '1' || value === 'infinity') return value;
  throw new DavRequestError(`Depth must be 0, 1 or infinity, not '${header}'`);
}

/** Depth of COPY, MOVE, DELETE and LOCK: 0 or infinity. */
export function parseLockDepth(header: string | undefined): LockDepth {
  const depth = parseDepth(header, 'infinity');
  if (depth === '1') throw new DavRequestError('Depth 1 is not allowed for this method; use 0 or infinity');
  return depth;
}

/** Overwrite: T (default) or F. */
export function parseOverwrite(header: string | undefined): boolean {
  if (header === undefined) return true;
  const value = header.trim().toUpperCase();
  if (value === 'T') return true;
  if (value === 'F') return false;
  throw new DavRequestError(`Overwrite must be T or F, not '${header}'`);
}

/** Timeout: the first usable of `Second-n` / `Infinite`; undefined when absent or none is usable. */
export function parseTimeout(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(',').map((p) => p.trim().toLowerCase())) {
    if (part === 'infinite') return Infinity;
    const match = /^second-(\d{1,10})$/.exec(part);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Lock-Token: `<token>` (UNLOCK). */
export function parseLockToken(header: string | undefined): string {
  const match = /^\s*<([^<>\s]+)>\s*$/.exec(header ?? '');
  if (!match) throw new DavRequestError('UNLOCK needs a Lock-Token header of the form <token>');
  return match[1]!;
}

/** The path of a Destination header (an absolute URI or an absolute path), still percent-encoded. */
export function destinationPath(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw new DavRequestError('COPY and MOVE need a Destination header');
  const value = header.trim();
  if (value.includes('#')) throw new DavRequestError('the Destination must not have a fragment (#)');
  if (value.startsWith('/')) return value.split('?')[0]!;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DavRequestError(`Destination '${value}' is not an absolute URI or path`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DavRequestError(`Destination '${value}' is not an http(s) URI`);
  // URL normalises dot segments away; the raw path must go through the strict checks.
  return rawPathOf(value);
}

function rawPathOf(uri: string): string {
  const afterScheme = uri.slice(uri.indexOf('//') + 2);
  const slash = afterScheme.indexOf('/');
  return slash < 0 ? '/' : afterScheme.slice(slash).split('?')[0]!;
}
