// What the http-fronts ask the dav-state actor, declared once for both ends.
// One thread owns the WebDAV lock table and the dead properties, so every
// http-front thread sees the same locks and properties; the properties are
// kept in a file under storage.data_dir and survive restarts, locks do not.
import type { DavResource } from '../../src/webdav/dav-path.js';
import type { PropertyLimit, PropertyPatch } from '../../src/webdav/dead-properties.js';
import type { ActiveLock, LockDepth, LockOutcome, LockRequest, UnlockOutcome } from '../../src/webdav/locks.js';
import type { ResourceState } from '../../src/webdav/properties.js';
import type { StateHintSource } from '../../src/webdav/state-hint.js';
import type { WriteGateService } from '../../src/webdav/write-check.js';

/** `hint()`: the shared counters; `writeGate()` and `release()`: the lock check and lease of a write. */
export interface DavStateProtocol extends StateHintSource, WriteGateService {
  /** Locks and dead properties of each resource; null where there are none. */
  describe(resources: DavResource[], what: { locks: boolean; properties: boolean }): Promise<(ResourceState | null)[]>;
  /**
   * Applies all patches in order, set by `principal` on `file` (the fileIdentity the front saw), or none (then it
   * names the limit they would pass); stored durably before it resolves, and rejected when that write failed.
   */
  patchProperties(resource: DavResource, patches: PropertyPatch[], principal: string, file: string): Promise<PropertyLimit | undefined>;
  lock(request: LockRequest): Promise<LockOutcome>;
  /** Refreshes the lock among `tokens` that covers `resource`; undefined when none does. */
  refresh(resource: DavResource, tokens: string[], principal: string, timeoutSeconds: number): Promise<ActiveLock | undefined>;
  unlock(resource: DavResource, token: string, principal: string): Promise<UnlockOutcome>;
  /** The resource (and everything below) is gone: drop its properties and locks. */
  removed(resource: DavResource): Promise<void>;
  /** Properties follow a MOVE; locks on the source are dropped. */
  moved(from: DavResource, to: DavResource): Promise<void>;
  /**
   * Properties follow a COPY (the resource only, or everything below with depth infinity) as set by `principal`,
   * unless that passes max_user_size or max_total_size.
   */
  copied(from: DavResource, to: DavResource, depth: LockDepth, principal: string): Promise<PropertyLimit | undefined>;
}
