// COPY and MOVE within one share (RFC 4918 §9.8, §9.9): Destination,
// Overwrite and Depth; dead properties follow, locks do not.
import { HttpError } from '../../http/http-error.js';
import { errorWithoutMessage } from '../../common/logger.js';
import type { Router } from '../../http/router.js';
import { isWithin, parentPath } from '../dav-path.js';
import type { LockDepth } from '../locks.js';
import type { DavEntry } from '../properties.js';
import { destinationPath, parseLockDepth, parseOverwrite } from '../requests.js';
import { copyOver, moveOver, PartialCopyError, type Replaced } from '../replace.js';
import { copyTree, membersMapped } from '../tree-ops.js';
import { pageDeleted, pageMoved, pageWritten } from '../wiki-hook.js';
import { DELETE_IT, MEMBER_CHECKS_AT_ONCE, MOVE_AWAY, READ_FILE, addMember } from '../write-rights.js';
import { mapConcurrent } from '../../common/map-concurrent.js';
import { isWikiDir } from '../../wiki/layout.js';
import { checkWikiLayout, forgetResource, parentTarget, sendFailures, type DavCall, type DavService } from './service.js';

export function registerDavCopyMoveRoutes(router: Router, svc: DavService): void {
  svc.route(router, 'COPY', (call) => copyOrMove(call, svc, 'copy'));
  svc.route(router, 'MOVE', (call) => copyOrMove(call, svc, 'move'));
}

async function copyOrMove(call: DavCall, svc: DavService, kind: 'copy' | 'move'): Promise<void> {
  const { ex } = call;
  const destination = svc.locate(destinationPath(ex.headers['destination']));
  // RFC 4918 allows 502 for a Destination in another namespace; here it is the client's request, not a failing backend.
  if (!destination || destination.share !== call.location.share) {
    throw new HttpError(403, 'other_share', 'the Destination must be on the same share');
  }
  const to = destination.path;
  const overwrite = parseOverwrite(ex.headers['overwrite']);
  const depth = parseLockDepth(ex.headers['depth']);
  if (kind === 'move' && depth !== 'infinity') throw new HttpError(400, 'invalid_request', 'MOVE of a collection needs Depth: infinity');
  if (call.path === '' || to === '') throw new HttpError(403, 'share_root', 'the share root cannot be copied, moved or replaced');
  if (to.toLowerCase() === call.path.toLowerCase()) throw new HttpError(403, 'same_resource', 'source and destination are the same');
  // Replacing a folder that holds the source would delete the source with it.
  if (isWithin(call.path, to)) throw new HttpError(403, 'onto_ancestor', `the destination ${to} is a folder that holds the source`);

  const targets = [{ resource: call.resource(to), depth: 'infinity' as LockDepth }, parentTarget(call, to)];
  if (kind === 'move') targets.push({ resource: call.resource(), depth: 'infinity' }, parentTarget(call, call.path));
  const check = await call.checkWrite(targets, { lease: call.conditional, state: () => call.storage.stat(call.path) });
  try {
    const source = check.current;
    if (!source) throw new HttpError(404, 'not_found', `${call.path} does not exist`);
    if (source.isCollection && isWithin(to, call.path)) throw new HttpError(403, 'into_itself', 'a folder cannot be copied or moved into itself');
    await checkDestinationLayout(call, source, to, kind, depth);
    const existing = await call.storage.stat(to);
    if (existing && !overwrite) throw new HttpError(412, 'destination_exists', `${to} exists and Overwrite is F`);
    // Another spelling of the same file (letter case aside, which is checked above).
    if (existing?.fileId === source.fileId) throw new HttpError(403, 'same_resource', `${to} is ${call.path} under another name`);
    if (!(await call.storage.stat(parentPath(to)))?.isCollection) {
      throw new HttpError(409, 'no_parent', `the folder of the destination ${to} does not exist`);
    }
    if (existing) {
      await checkReplaceRights(call, source, existing, kind);
      return await replaceExisting(call, svc, source, existing, kind, depth);
    }
    if (kind === 'move') {
      await call.storage.rename(call.path, to);
      await movedState(call, svc, to);
      hookMoved(call, svc, source, to);
    } else {
      const copied = await copyTree(call.storage, source, to, depth);
      await copiedState(call, svc, to, depth);
      svc.hook(copied.files.flatMap((f) => pageWritten(call.server, call.location.share, f)));
      if (copied.failures.length > 0) return sendFailures(call, copied.failures);
    }
    ex.send(201);
  } finally {
    check.release();
  }
}

/**
 * RFC 4918 §9.8.4, §9.9.3: an existing destination is deleted, as the user. So the file server decides whether this
 * user may delete what is there (DELETE on it, or FILE_DELETE_CHILD on its folder), as Windows asks of a rename that
 * replaces a file — Samba would let a rename replace a file its user may not delete —, and for a folder on each of
 * its members. It is asked before anything changes, with what the move or copy itself needs, so that an operation
 * the file server would refuse changes nothing.
 */
async function checkReplaceRights(call: DavCall, source: DavEntry, existing: DavEntry, kind: 'copy' | 'move'): Promise<void> {
  await call.requireRight(call.path, kind === 'move' ? MOVE_AWAY : READ_FILE);
  await call.requireRight(parentPath(existing.path), addMember(source.isCollection));
  await call.requireRight(existing.path, DELETE_IT);
  if (!existing.isCollection) return;
  const checked = mapConcurrent(call.storage.walk(existing.path), MEMBER_CHECKS_AT_ONCE, (m) => call.requireRight(m.path, DELETE_IT));
  for await (const _ of checked); // each member passes, or the first refusal ends the walk
}

/** The destination exists and may be replaced: the old one goes only once the new one stands (replace.ts). */
async function replaceExisting(call: DavCall, svc: DavService, source: DavEntry, existing: DavEntry, kind: 'copy' | 'move', depth: LockDepth): Promise<void> {
  const to = existing.path;
  let replaced: Replaced;
  try {
    replaced = kind === 'move' ? await moveOver(call.storage, source, existing, to) : await copyOver(call.storage, source, existing, to, depth);
  } catch (err) {
    if (err instanceof PartialCopyError) return sendFailures(call, err.result.failures);
    throw err;
  }
  await forgetResource(call, svc, to);
  svc.hook(replaced.removed.flatMap((f) => pageDeleted(call.server, call.location.share, f)));
  if (kind === 'move') {
    await movedState(call, svc, to);
    hookMoved(call, svc, source, to);
  } else {
    await copiedState(call, svc, to, depth);
    svc.hook(replaced.files.flatMap((f) => pageWritten(call.server, call.location.share, f)));
  }
  if (replaced.failures.length > 0) return sendFailures(call, replaced.failures);
  call.ex.send(204);
}

/** Locks and dead properties follow a moved resource (dav-state), when there are any. */
async function movedState(call: DavCall, svc: DavService, to: string): Promise<void> {
  const counts = await svc.hints.counts();
  if (counts.locks + counts.propertyResources > 0) await svc.davState.moved(call.resource(), call.resource(to));
}

/** Dead properties are copied with a resource; locks are not. */
async function copiedState(call: DavCall, svc: DavService, to: string, depth: LockDepth): Promise<void> {
  if ((await svc.hints.counts()).propertyResources > 0) await svc.davState.copied(call.resource(), call.resource(to), depth, call.principal);
}

/** The wiki layout must hold at the destination: no folders in a `.wiki/`, only `*.md` files. */
async function checkDestinationLayout(call: DavCall, source: DavEntry, to: string, kind: 'copy' | 'move', depth: LockDepth): Promise<void> {
  if (!source.isCollection) return checkWikiLayout(to, 'file');
  checkWikiLayout(to, 'folder');
  if (kind === 'copy' && depth === '0') return;
  if (!isWikiDir(to)) return; // members keep their places relative to each other, so their layout holds
  for (const member of await call.storage.list(call.path)) {
    checkWikiLayout(`${to}/${member.name}`, member.isCollection ? 'folder' : 'file');
  }
}

/** Post-write hook for a MOVE: a folder's pages are found by walking it after the answer went out. */
function hookMoved(call: DavCall, svc: DavService, source: DavEntry, to: string): void {
  const { server } = call;
  const share = call.location.share;
  if (!source.isCollection) return svc.hook(pageMoved(server, share, call.path, to));
  const moved: DavEntry = { ...source, path: to };
  membersMapped(call.storage, moved, call.path).then(
    (members) => svc.hook(members.filter((m) => !m.entry.isCollection).flatMap((m) => pageMoved(server, share, m.target, m.entry.path))),
    (err: unknown) => svc.deps.log.warn({ err: errorWithoutMessage(err) }, 'could not list a moved folder for the post-write hook; the reconciler will catch up'),
  );
}
