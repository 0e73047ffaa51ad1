// Where the dav-state actor keeps dead properties: a log under storage.data_dir (DeadProperties, one proxy) or the
// cluster the proxies share (ClusterProperties, cluster.shared_state: elasticsearch). Both bound them alike
// (property-budget.ts) and make a change durable before it resolves.
import type { DavResource } from './dav-path.js';
import type { LockDepth } from './locks.js';
import type { PropertyLimit, PropertyPatch } from './property-budget.js';
import type { XmlElement } from './xml.js';

export interface PropertyStore {
  /** Resources with dead properties, as last seen (for /healthz and metrics). */
  readonly size: number;
  /** What all properties take as counted against webdav.dead_properties.max_total_size, as last seen. */
  readonly bytes: number;
  /** Each resource's properties (none: empty). */
  getMany(resources: readonly DavResource[]): Promise<XmlElement[][]>;
  /** All patches in order, set by `owner` on `file` (its fileIdentity), or none: then the bound they would pass. */
  patch(resource: DavResource, patches: readonly PropertyPatch[], owner: string, file?: string): Promise<PropertyLimit | undefined>;
  /** Drops the properties of the resource and of everything below it. */
  remove(resource: DavResource): Promise<void>;
  /** The properties of the resource and everything below it follow a MOVE (those at the destination go). */
  move(from: DavResource, to: DavResource): Promise<void>;
  /** The properties follow a COPY as set by `owner`, unless that passes max_user_size or max_total_size (then none). */
  copy(from: DavResource, to: DavResource, depth: LockDepth, owner: string): Promise<PropertyLimit | undefined>;
  /**
   * Drops the properties of resources whose file is gone or replaced behind the proxy's back: `identityAt` says
   * what the path names now (fileIdentity; null: nothing; undefined: cannot tell). Returns how many lost them.
   */
  sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number>;
  close(): Promise<void>;
}
