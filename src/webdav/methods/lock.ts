// LOCK and UNLOCK (RFC 4918 §9.10, §9.11): exclusive and shared write locks
// held by the dav-state actor. A LOCK on a name that does not exist creates
// an empty file (RFC 4918 §7.3). Taking or refreshing a lock needs the write
// right it reserves, asked of the file server; taking a depth-infinity lock on
// a folder needs it on every member too; the share root is never locked;
// locks per user, the owner's size (and with it the body read) and the members
// of a depth-infinity lock are bounded (config webdav.locks).
import { mapConcurrent } from '../../common/map-concurrent.js';
import type { Config } from '../../config/index.js';
import { HttpError } from '../../http/http-error.js';
import type { Router } from '../../http/router.js';
import { SmbError } from '../../smb/index.js';
import { parentPath } from '../dav-path.js';
import { lockResponseBody, MULTISTATUS_TYPE } from '../multistatus.js';
import { isEmpty, parseLockDepth, parseLockInfo, parseLockToken, parseTimeout } from '../requests.js';
import { submittedTokens } from '../if-header.js';
import type { DavEntry } from '../properties.js';
import { pageWritten } from '../wiki-hook.js';
import { CREATE_FILE, LIST_FOLDER, MEMBER_CHECKS_AT_ONCE, lockRight } from '../write-rights.js';
import { storedSize } from '../xml.js';
import { checkWikiLayout, parentTarget, type DavCall, type DavService } from './service.js';

/** lockBodyLimit's least: a lockinfo with an owner of any size the default bound allows, spelt generously. */
const LOCK_BODY_FLOOR = 64 * 1024;

/**
 * The most bytes of a LOCK body that are read and parsed: a lockinfo is a lock scope, a lock type and the owner,
 * whose stored size webdav.locks.max_owner_size bounds. Its XML may spell an owner within that bound larger
 * (character references, white space), so sixteen times the bound, at least LOCK_BODY_FLOOR, at most http.max_body.
 * A longer body is refused unread (413 body_too_large): a megabyte of hostile owner was parsed before it was
 * refused (lock_owner_too_large), about a third of the http-front's CPU in the abuse suite's lock floods.
 */
export function lockBodyLimit(config: Pick<Config, 'http' | 'webdav'>): number {
  return Math.min(config.http.max_body, Math.max(LOCK_BODY_FLOOR, 16 * config.webdav.locks.max_owner_size));
}

export function registerDavLockRoutes(router: Router, svc: DavService): void {
  svc.route(router, 'LOCK', (call) => lock(call, svc), 'xml', lockBodyLimit(svc.deps.config));
  svc.route(router, 'UNLOCK', (call) => unlock(call, svc));
}

async function lock(call: DavCall, svc: DavService): Promise<void> {
  const body = await call.ex.readBody();
  // Depth infinity there would stop every write in the share; no Windows lock reaches that far either.
  if (call.path === '') throw new HttpError(403, 'share_root', 'the share root cannot be locked; lock a folder or file in it');
  const timeoutSeconds = parseTimeout(call.ex.headers['timeout']) ?? 0;
  if (isEmpty(body)) return refresh(call, svc, timeoutSeconds);
  const info = parseLockInfo(body);
  const { max_owner_size: maxOwner } = svc.deps.config.webdav.locks;
  if (info.owner && storedSize(info.owner) > maxOwner) {
    throw new HttpError(403, 'lock_owner_too_large', `the lock owner takes ${storedSize(info.owner)} bytes; webdav.locks.max_owner_size allows ${maxOwner}`);
  }
  const depth = parseLockDepth(call.ex.headers['depth']);
  const existing = await call.storage.stat(call.path);
  if (!existing) checkWikiLayout(call.path, 'file');
  await requireLockRight(call, existing);
  if (existing?.isCollection && depth === 'infinity') await requireMembersLockRight(call, svc);
  // Locking a name that does not exist creates a member of the parent folder.
  const check = await call.checkWrite(existing ? [] : [parentTarget(call, call.path)], { state: async () => existing });
  try {
    const outcome = await svc.davState.lock({
      resource: call.resource(), scope: info.scope, depth, principal: call.principal, timeoutSeconds,
      ...(info.owner ? { owner: info.owner } : {}),
    });
    if ('conflict' in outcome) {
      throw new HttpError(423, 'locked', `${call.path || '/'} is already locked (lock on ${call.href(outcome.conflict.path, false)})`);
    }
    if ('limit' in outcome) {
      const max = svc.deps.config.webdav.locks.max_per_user;
      throw new HttpError(403, 'too_many_locks', `you hold ${max} locks, as many as webdav.locks.max_per_user allows; unlock one first`);
    }
    const granted = outcome.granted;
    if (!existing) {
      try {
        await call.storage.upload(call.path, (async function* () {})(), async () => 'create');
      } catch (err) {
        await svc.davState.unlock(call.resource(), granted.token, call.principal);
        throw err;
      }
      svc.hook(pageWritten(call.server, call.location.share, call.path));
    }
    call.ex.send(existing ? 200 : 201, lockResponseBody(granted), { 'content-type': MULTISTATUS_TYPE, 'lock-token': `<${granted.token}>` });
  } finally {
    check.release();
  }
}

/** The file server's verdict on the write a lock reserves (see write-rights.ts); a new name needs its folder's. */
async function requireLockRight(call: DavCall, existing: DavEntry | null): Promise<void> {
  if (existing) return call.requireRight(call.path, lockRight(existing.isCollection));
  try {
    await call.requireRight(parentPath(call.path), CREATE_FILE);
  } catch (err) {
    if (err instanceof SmbError && err.code === 'NOT_FOUND') throw new HttpError(409, 'no_parent', `the folder of ${call.path} does not exist`);
    throw err;
  }
}

/**
 * A depth-infinity lock on a folder stops writes to everything below it, so it needs, at the time it is taken, the
 * right each member would need to be locked on its own (lockRight), asked as the user while walking the folder, a
 * few members at a time: a user must not block writes to files they cannot write (a pupil who may add files to a
 * hand-in folder, the teacher's save of the worksheet in it). The first member refused ends the walk with a 403
 * naming it; so does a folder below that the user may not list, since the lock would reach what the user cannot
 * see. A lock that would cover more than webdav.locks.max_deep_lock_members members is refused (lock_too_wide).
 */
async function requireMembersLockRight(call: DavCall, svc: DavService): Promise<void> {
  const max = svc.deps.config.webdav.locks.max_deep_lock_members;
  const unlisted = (err: unknown, folder: string): never => {
    throw err instanceof SmbError && err.code === 'ACCESS_DENIED' ? call.refused(folder, LIST_FOLDER) : err;
  };
  async function* members(): AsyncGenerator<DavEntry> {
    let count = 0;
    for await (const member of call.storage.walk(call.path, unlisted)) {
      if (++count > max) {
        throw new HttpError(403, 'lock_too_wide', `${call.path} holds more than ${max} files and folders, as many as webdav.locks.max_deep_lock_members lets a Depth: infinity lock cover; lock a folder further down`);
      }
      yield member;
    }
  }
  const checked = mapConcurrent(members(), MEMBER_CHECKS_AT_ONCE, (m) => call.requireRight(m.path, lockRight(m.isCollection)));
  for await (const _ of checked); // each member passes, or the first refusal ends the walk
}

/** A LOCK without a body refreshes the lock whose token the If header submits, if its owner may still write. */
async function refresh(call: DavCall, svc: DavService, timeoutSeconds: number): Promise<void> {
  const lists = call.ifHeader();
  const entry = await call.storage.stat(call.path); // the credentials must hold before a lock of theirs is touched
  if (!lists) throw new HttpError(400, 'invalid_request', 'a LOCK without a body refreshes a lock: it needs an If header with the lock token');
  if (entry) await call.requireRight(call.path, lockRight(entry.isCollection));
  const refreshed = await svc.davState.refresh(call.resource(), submittedTokens(lists), call.principal, timeoutSeconds);
  if (!refreshed) throw new HttpError(412, 'precondition_failed', `no lock of yours with the submitted token covers ${call.path || '/'}`);
  call.ex.send(200, lockResponseBody(refreshed), { 'content-type': MULTISTATUS_TYPE });
}

async function unlock(call: DavCall, svc: DavService): Promise<void> {
  const token = parseLockToken(call.ex.headers['lock-token']);
  await call.storage.stat(call.path); // the credentials must hold before a lock of theirs is touched
  const outcome = await svc.davState.unlock(call.resource(), token, call.principal);
  if (outcome === 'no-such-lock') throw new HttpError(409, 'no_such_lock', `no lock with token ${token} covers ${call.path || '/'}`);
  if (outcome === 'not-owner') throw new HttpError(403, 'not_lock_owner', 'the lock belongs to another user');
  call.ex.send(204);
}
