// LOCK and UNLOCK (RFC 4918 §9.10, §9.11): exclusive and shared write locks
// held by the dav-state actor. A LOCK on a name that does not exist creates
// an empty file (RFC 4918 §7.3).
import { HttpError } from '../../../src/http/http-error.js';
import type { Router } from '../../../src/http/router.js';
import { lockResponseBody } from '../../../src/webdav/multistatus.js';
import { isEmpty, parseLockDepth, parseLockInfo, parseLockToken, parseTimeout } from '../../../src/webdav/requests.js';
import { submittedTokens } from '../../../src/webdav/if-header.js';
import { pageWritten } from '../../../src/webdav/wiki-hook.js';
import { MULTISTATUS_TYPE } from './dav-read.js';
import { checkWikiLayout } from './dav-write.js';
import { parentTarget, type DavCall, type DavService } from './dav.js';

export function registerDavLockRoutes(router: Router, svc: DavService): void {
  svc.route(router, 'LOCK', (call) => lock(call, svc), 'xml');
  svc.route(router, 'UNLOCK', (call) => unlock(call, svc));
}

async function lock(call: DavCall, svc: DavService): Promise<void> {
  const body = await call.ex.readBody();
  const timeoutSeconds = parseTimeout(call.ex.headers['timeout']) ?? 0;
  if (isEmpty(body)) return refresh(call, svc, timeoutSeconds);
  const info = parseLockInfo(body);
  const depth = parseLockDepth(call.ex.headers['depth']);
  const existing = await call.storage.stat(call.path);
  if (!existing) checkWikiLayout(call.path, 'file');
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

/** A LOCK without a body refreshes the lock whose token the If header submits. */
async function refresh(call: DavCall, svc: DavService, timeoutSeconds: number): Promise<void> {
  const lists = call.ifHeader();
  await call.storage.stat(call.path); // the credentials must hold before a lock of theirs is touched
  if (!lists) throw new HttpError(400, 'invalid_request', 'a LOCK without a body refreshes a lock: it needs an If header with the lock token');
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
