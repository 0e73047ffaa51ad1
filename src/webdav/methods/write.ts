// WebDAV writes: PUT (atomic, conditional, streamed), DELETE, MKCOL and
// PROPPATCH (COPY/MOVE and LOCK/UNLOCK are in copy-move.ts and lock.ts). The SMB
// writes are the file server's to allow; PROPPATCH, whose properties live in
// dav-state, asks it for the right first (write-rights.ts).
import { HttpError } from '../../http/http-error.js';
import type { Router } from '../../http/router.js';
import { NtStatus, SmbError, SmbStatusError } from '../../smb/index.js';
import type { CommitMode } from '../../smb/index.js';
import { fileIdentity } from '../dead-properties.js';
import type { PropertyLimit, PropertyPatch } from '../property-budget.js';
import { MULTISTATUS_TYPE, multistatus, propertyElement, propstatResponse } from '../multistatus.js';
import { entryEtag, isLiveProperty } from '../properties.js';
import { isEmpty, parseLockDepth, parsePropertyUpdate } from '../requests.js';
import { removeTree } from '../tree-ops.js';
import { pageDeleted, pageWritten } from '../wiki-hook.js';
import { WRITE_PROPERTIES } from '../write-rights.js';
import { clarkName } from '../xml.js';
import type { WriteCheck } from '../write-check.js';
import { checkWikiLayout, forgetResource, parentTarget, sendFailures, type DavCall, type DavService } from './service.js';

export function registerDavWriteRoutes(router: Router, svc: DavService): void {
  svc.route(router, 'PUT', (call) => put(call, svc), 'stream');
  svc.route(router, 'DELETE', (call) => remove(call, svc));
  svc.route(router, 'MKCOL', mkcol, 'xml');
  svc.route(router, 'PROPPATCH', (call) => proppatch(call, svc), 'xml');
}

async function put(call: DavCall, svc: DavService): Promise<void> {
  if (call.path === '' || call.location.trailingSlash) throw new HttpError(405, 'is_a_collection', 'PUT needs a file path, not a folder');
  checkWikiLayout(call.path, 'file');
  const { locks } = await svc.hints.counts();
  const guarded = call.conditional || locks > 0;
  let check: WriteCheck | undefined;
  const decide = async (): Promise<CommitMode> => {
    if (!guarded) return 'create-or-replace';
    check = await call.checkWrite([{ resource: call.resource(), depth: '0' }, parentTarget(call, call.path)], {
      lease: call.conditional,
      state: () => call.storage.stat(call.path),
    });
    if (check.current?.isCollection) throw new HttpError(405, 'is_a_collection', `${call.path} is a folder`);
    // A conditional PUT must not replace a file created meanwhile; a plain one may.
    return check.current ? 'replace' : call.conditional ? 'create' : 'create-or-replace';
  };
  let result;
  try {
    result = await call.storage.upload(call.path, call.ex.bodyChunks(), decide);
  } catch (err) {
    throw await putFailure(call, err);
  } finally {
    check?.release();
  }
  call.ex.send(result.created ? 201 : 204, '', { etag: entryEtag(result.entry), 'last-modified': new Date(result.entry.mtimeMs).toUTCString() });
  svc.hook(pageWritten(call.server, call.location.share, call.path));
}

/** What a failed upload means for the client. */
async function putFailure(call: DavCall, err: unknown): Promise<unknown> {
  if (!(err instanceof SmbError)) return err;
  if (err instanceof SmbStatusError && err.status === NtStatus.OBJECT_PATH_NOT_FOUND) {
    return new HttpError(409, 'no_parent', `the folder of ${call.path} does not exist`);
  }
  // Another writer created or deleted the file between the check and the write.
  if (err.code === 'NAME_COLLISION' && call.conditional) return new HttpError(412, 'precondition_failed', `${call.path} was created meanwhile`);
  if (err.code === 'NOT_FOUND' && call.conditional) return new HttpError(412, 'precondition_failed', `${call.path} was deleted meanwhile`);
  const target = await call.storage.stat(call.path).catch(() => null);
  if (target?.isCollection) return new HttpError(405, 'is_a_collection', `${call.path} is a folder`);
  return err;
}

async function remove(call: DavCall, svc: DavService): Promise<void> {
  if (call.path === '') throw new HttpError(403, 'share_root', 'the share root cannot be deleted');
  if (parseLockDepth(call.ex.headers['depth']) !== 'infinity') {
    throw new HttpError(400, 'invalid_request', 'DELETE removes the whole resource: Depth must be infinity or absent');
  }
  const check = await call.checkWrite([{ resource: call.resource(), depth: 'infinity' }, parentTarget(call, call.path)], {
    lease: call.conditional,
    state: () => call.storage.stat(call.path),
  });
  try {
    const entry = check.current;
    if (!entry) throw new HttpError(404, 'not_found', `${call.path} does not exist`);
    const result = await removeTree(call.storage, entry);
    // What the file server kept (members this user may not delete) keeps its locks and dead properties.
    if (result.failures.length === 0) await forgetResource(call, svc, call.path);
    else for (const file of result.files) await forgetResource(call, svc, file);
    svc.hook(result.files.flatMap((f) => pageDeleted(call.server, call.location.share, f)));
    if (result.failures.length > 0) return sendFailures(call, result.failures);
    call.ex.send(204);
  } finally {
    check.release();
  }
}

async function mkcol(call: DavCall): Promise<void> {
  if (!isEmpty(await call.ex.readBody())) throw new HttpError(415, 'unsupported_body', 'MKCOL takes no request body');
  if (call.path === '') throw new HttpError(405, 'exists', 'the share root exists');
  checkWikiLayout(call.path, 'folder');
  const check = await call.checkWrite([{ resource: call.resource(), depth: '0' }, parentTarget(call, call.path)]);
  try {
    await call.storage.mkdir(call.path);
  } catch (err) {
    if (err instanceof SmbError && err.code === 'NAME_COLLISION') throw new HttpError(405, 'exists', `${call.path} already exists`);
    if (err instanceof SmbError && err.code === 'NOT_FOUND') throw new HttpError(409, 'no_parent', `the folder of ${call.path} does not exist`);
    throw err;
  } finally {
    check.release();
  }
  call.ex.send(201);
}

async function proppatch(call: DavCall, svc: DavService): Promise<void> {
  const patches = parsePropertyUpdate(await call.ex.readBody());
  const entry = await call.storage.stat(call.path);
  if (!entry) throw new HttpError(404, 'not_found', `${call.path || '/'} does not exist`);
  await call.requireRight(call.path, WRITE_PROPERTIES);
  const check = await call.checkWrite([{ resource: call.resource(), depth: '0' }], { state: async () => entry });
  try {
    const nameOf = (p: PropertyPatch) => ('set' in p ? p.set : p.remove);
    const refused = patches.filter((p) => isLiveProperty(nameOf(p)));
    if (refused.length === 0) {
      const limit = await svc.davState.patchProperties(call.resource(), patches, call.principal, fileIdentity(entry));
      if (limit) throw propertyLimitError(svc, limit);
    }
    const distinct = (list: PropertyPatch[]) => [...new Map(list.map((p) => [clarkName(nameOf(p).ns, nameOf(p).name), nameOf(p)])).values()];
    const groups = refused.length === 0
      ? [{ status: 200, properties: distinct(patches).map(propertyElement) }]
      : [
        { status: 403, properties: distinct(refused).map(propertyElement) },
        { status: 424, properties: distinct(patches.filter((p) => !refused.includes(p))).map(propertyElement) },
      ];
    call.ex.send(207, multistatus([propstatResponse(call.href(call.path, entry.isCollection), groups)]), { 'content-type': MULTISTATUS_TYPE });
  } finally {
    check.release();
  }
}

/** A bound of one resource is the client's to respect (403); a full store is the service's state (507, RFC 4918 §9.2.1). */
function propertyLimitError(svc: DavService, limit: PropertyLimit): HttpError {
  const bound = svc.deps.config.webdav.dead_properties[limit];
  const key = `webdav.dead_properties.${limit}`;
  switch (limit) {
    case 'max_per_resource': return new HttpError(403, 'too_many_properties', `a resource may carry ${bound} dead properties (${key})`);
    case 'max_resource_size': return new HttpError(403, 'properties_too_large', `the dead properties of a resource may take ${bound} bytes (${key})`);
    case 'max_user_size': return new HttpError(403, 'user_properties_too_large', `the dead properties one user sets may take ${bound} bytes of memory (${key})`);
    case 'max_total_size': return new HttpError(507, 'property_store_full', `the dead properties of all resources may take ${bound} bytes of memory (${key}); the store is full`);
  }
}
