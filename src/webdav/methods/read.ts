// WebDAV reads: GET and HEAD (ETag, conditional requests, one byte range)
// and PROPFIND (depth 0 and 1; infinity is refused).
import { mapConcurrent } from '../../common/map-concurrent.js';
import { HttpError } from '../../http/http-error.js';
import type { Router } from '../../http/router.js';
import { SmbError } from '../../smb/index.js';
import { attachmentDisposition, isActiveContent } from '../active-content.js';
import { contentTypeOf } from '../mime.js';
import { MULTISTATUS_TYPE, multistatus, propertyElement, propstatResponse, type PropstatGroup } from '../multistatus.js';
import { evaluatePreconditions } from '../preconditions.js';
import { entryEtag, isLiveProperty, liveNames, liveProperty, type DavEntry, type ResourceState } from '../properties.js';
import { ifRangeHolds, requestedRange } from '../range.js';
import { parseDepth, parsePropfind, type PropertyName, type PropfindRequest } from '../requests.js';
import { MEMBER_CHECKS_AT_ONCE, READ_PROPERTIES } from '../write-rights.js';
import { DAV_NS, clarkName, type XmlElement } from '../xml.js';
import type { DavCall, DavService } from './service.js';

export function registerDavReadRoutes(router: Router, svc: DavService): void {
  svc.route(router, 'GET', get);
  svc.route(router, 'PROPFIND', (call) => propfind(call, svc), 'xml');
}

function collectionRefused(call: DavCall): HttpError {
  return new HttpError(405, 'is_a_collection', `${call.path || '/'} is a folder; list it with PROPFIND`, { allow: 'OPTIONS, PROPFIND, PROPPATCH, DELETE, MOVE, COPY, LOCK, UNLOCK' });
}

/** GET and HEAD (the router sends HEAD here too). */
async function get(call: DavCall): Promise<void> {
  const { ex } = call;
  const isHead = ex.method === 'HEAD';
  if (call.path === '') throw collectionRefused(call);
  let entry: DavEntry;
  let head: Buffer = Buffer.alloc(0);
  if (isHead) {
    const found = await call.storage.stat(call.path);
    if (!found) throw new HttpError(404, 'not_found', `${call.path} does not exist`);
    entry = found;
  } else {
    try {
      ({ entry, head } = await call.storage.openRead(call.path));
    } catch (err) {
      if (err instanceof SmbError && err.code === 'IS_A_DIRECTORY') throw collectionRefused(call);
      throw err;
    }
  }
  if (entry.isCollection) throw collectionRefused(call);
  const etag = entryEtag(entry);
  const validators = { etag, 'last-modified': new Date(entry.mtimeMs).toUTCString() };
  const outcome = evaluatePreconditions(ex.method, { etag, mtimeMs: entry.mtimeMs }, ex.headers);
  if (outcome === 304) return ex.send(304, '', validators);
  if (outcome === 412) throw new HttpError(412, 'precondition_failed', `a precondition does not hold for ${call.path}`);

  const contentType = contentTypeOf(entry.name);
  const headers: Record<string, string> = {
    ...validators,
    'content-type': contentType,
    'accept-ranges': 'bytes',
    ...(isActiveContent(contentType) ? { 'content-disposition': attachmentDisposition(entry.name) } : {}),
  };
  const range = ifRangeHolds(ex.headers['if-range'], etag, entry.mtimeMs) ? requestedRange(ex.headers['range'], entry.size) : undefined;
  if (range === 'unsatisfiable') {
    throw new HttpError(416, 'range_not_satisfiable', `the range is outside the ${entry.size} bytes of ${call.path}`, { 'content-range': `bytes */${entry.size}` });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? entry.size - 1;
  const status = range ? 206 : 200;
  const all = range ? { ...headers, 'content-range': `bytes ${start}-${end}/${entry.size}` } : headers;
  const length = end + 1 - start;
  if (isHead) return ex.head(status, all, length);
  if (end < head.length) return ex.send(status, head.subarray(start, end + 1), all);
  const storage = call.storage;
  await ex.stream(status, all, length, (async function* () {
    if (start < head.length) yield head.subarray(start);
    yield* storage.readBlocks(entry, Math.max(start, head.length), end);
  })());
}

async function propfind(call: DavCall, svc: DavService): Promise<void> {
  const depth = parseDepth(call.ex.headers['depth'], 'infinity');
  if (depth === 'infinity') {
    throw new HttpError(403, 'propfind_finite_depth', 'PROPFIND with Depth: infinity is not supported; use Depth 0 or 1');
  }
  const request = parsePropfind(await call.ex.readBody());
  const root = await call.storage.stat(call.path);
  if (!root) throw new HttpError(404, 'not_found', `${call.path || '/'} does not exist`);
  const entries = depth === '1' && root.isCollection ? [root, ...(await call.storage.list(call.path))] : [root];

  const wantsLocks = request.kind === 'allprop' || (request.kind === 'prop' && request.names.some((n) => n.ns === DAV_NS && n.name === 'lockdiscovery'));
  const wantsDead = request.kind !== 'prop' || request.names.some((n) => !isLiveProperty(n));
  const counts = wantsLocks || wantsDead ? await svc.hints.counts() : { locks: 0, propertyResources: 0 };
  const what = { locks: wantsLocks && counts.locks > 0, properties: wantsDead && counts.propertyResources > 0 };
  const described = what.locks || what.properties
    ? await svc.davState.describe(entries.map((e) => call.resource(e.path)), what)
    : entries.map(() => null);
  const states = await withReadableProperties(call, entries, described);

  const responses = entries.map((e, i) => propstatResponse(call.href(e.path, e.isCollection), propertiesOf(e, states[i] ?? null, request)));
  call.ex.send(207, multistatus(responses), { 'content-type': MULTISTATUS_TYPE });
}

/**
 * The states with the dead properties of each entry left out where the file server does not grant this user
 * READ_PROPERTIES (FILE_READ_EA) on it, as an SMB client reading the file's extended attributes would be refused.
 * Asked only of entries that have dead properties (usually none, so a listing costs no extra round trip), a few at
 * a time. Left out means answered as if it had none (a named one: 404, not 403), so that the answer does not tell
 * that there are some either. An entry gone since the listing has none to show.
 */
async function withReadableProperties(call: DavCall, entries: DavEntry[], states: (ResourceState | null)[]): Promise<(ResourceState | null)[]> {
  const annotated = entries.filter((_, i) => (states[i]?.properties.length ?? 0) > 0);
  const hidden = new Set<string>();
  const mayRead = (e: DavEntry): Promise<boolean> => call.grants(e.path, READ_PROPERTIES).catch((err: unknown) => {
    if (err instanceof SmbError && err.code === 'NOT_FOUND') return false;
    throw err;
  });
  for await (const { path, readable } of mapConcurrent(annotated, MEMBER_CHECKS_AT_ONCE, async (e) => ({ path: e.path, readable: await mayRead(e) }))) {
    if (!readable) hidden.add(path);
  }
  return states.map((state, i) => (state && hidden.has(entries[i]!.path) ? { ...state, properties: [] } : state));
}

function propertiesOf(e: DavEntry, state: ResourceState | null, request: PropfindRequest): PropstatGroup[] {
  const locks = state?.locks ?? [];
  const dead = state?.properties ?? [];
  if (request.kind === 'propname') {
    return [{ status: 200, properties: [...liveNames(e), ...dead].map(propertyElement) }];
  }
  if (request.kind === 'allprop') {
    const live = liveNames(e).map((n) => liveProperty(e, n.name, locks)!);
    return [{ status: 200, properties: [...live, ...dead] }];
  }
  const deadByName = new Map(dead.map((p) => [clarkName(p.ns, p.name), p]));
  const found: XmlElement[] = [];
  const missing: PropertyName[] = [];
  for (const name of request.names) {
    const value = isLiveProperty(name) ? liveProperty(e, name.name, locks) : deadByName.get(clarkName(name.ns, name.name));
    if (value) found.push(value);
    else missing.push(name);
  }
  return [{ status: 200, properties: found }, { status: 404, properties: missing.map(propertyElement) }];
}
