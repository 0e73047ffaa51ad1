// What the http-fronts ask the dav-state actor, declared once for both ends.
// One thread owns the WebDAV lock table and the dead properties, so every
// http-front thread sees the same locks and properties; the properties are
// kept in a file under storage.data_dir and survive restarts, locks do not.
import type { DavStateKeeper } from '../../src/webdav/state-keeper.js';

/** dav-state serves what the WebDAV methods ask of the thread that keeps locks and dead properties, and no more. */
export type DavStateProtocol = DavStateKeeper;
