// WebDAV on the SMB shares: /dav/{share}/{path}. Every request opens (or
// reuses from the pool) an SMB session as the user of its Basic credentials,
// so the file server's ACLs decide what they may do. Locks and dead
// properties live in the dav-state actor; the protocol pieces are in
// src/webdav. This module registers the method files (read, write,
// copy-move, lock), which share service.ts and only dispatch.
import type { Router } from '../../http/router.js';
import { DAV_PREFIX } from '../dav-path.js';
import { DAV_RESPONSE_HEADERS } from '../active-content.js';
import { DavService, type DavDeps } from './service.js';
import { registerDavCopyMoveRoutes } from './copy-move.js';
import { registerDavLockRoutes } from './lock.js';
import { registerDavReadRoutes } from './read.js';
import { registerDavWriteRoutes } from './write.js';

const DAV_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];

export function registerDavRoutes(router: Router, deps: DavDeps): DavService {
  const svc = new DavService(deps);
  router.addHeaders(`${DAV_PREFIX}*`, DAV_RESPONSE_HEADERS);
  router.add('OPTIONS', `${DAV_PREFIX}*`, (ex) => {
    ex.send(200, '', { dav: '1, 2', allow: DAV_METHODS.join(', '), 'ms-author-via': 'DAV' });
  });
  registerDavReadRoutes(router, svc);
  registerDavWriteRoutes(router, svc);
  registerDavCopyMoveRoutes(router, svc);
  registerDavLockRoutes(router, svc);
  return svc;
}
