// What dead properties cost and where their bounds are (config webdav.dead_properties): per resource as stored
// (their JSON), per user and in total by the memory they take where one proxy keeps them (memoryCost). One
// reckoning for both stores, the log of one proxy (DeadProperties) and the cluster of several (ClusterProperties),
// so that a bound means the same with either.
import { clarkName, type XmlElement } from './xml.js';

/**
 * Heap bytes a stored property takes beside its text, its name and its resource's share and path: its map entry,
 * its object and the strings' headers; and those of its resource (the resource's object, its map of properties,
 * its entry and key in the store's map), which each property counts, so that a user's count carries them too
 * (measured: test/unit/webdav/dead-property-memory.test.ts).
 */
const PROPERTY_OVERHEAD = 160;
const RESOURCE_OVERHEAD = 360;

export type PropertyPatch = { set: XmlElement } | { remove: { ns: string; name: string } };

/** The key under webdav.dead_properties whose bound a change would pass. */
export type PropertyLimit = 'max_per_resource' | 'max_resource_size' | 'max_user_size' | 'max_total_size';

export interface PropertyLimits {
  maxPerResource: number;
  /** Bytes of one resource's properties as stored (see storedSize). */
  maxResourceSize: number;
  /** memoryCost of the properties one user set. */
  maxUserSize: number;
  /** memoryCost of all properties. */
  maxTotalSize: number;
}

/** A property as kept: its JSON (what storedSize measures) and who set it ('' when the log predates owners). */
export interface StoredProperty {
  json: string;
  owner: string;
}

/** Properties of one resource by `{ns}name`. */
export type PropertySet = Map<string, StoredProperty>;

export function propertySet(properties: readonly XmlElement[], owners: readonly string[] | undefined): PropertySet {
  return new Map(properties.map((p, i) => [clarkName(p.ns, p.name), { json: JSON.stringify(p), owner: owners?.[i] ?? '' }]));
}

/** storedSize of the properties: their JSON in UTF-8. */
export function sizeOf(properties: PropertySet): number {
  let bytes = 0;
  for (const p of properties.values()) bytes += Buffer.byteLength(p.json);
  return bytes;
}

/**
 * What a property takes in the heap, counted from above: its JSON and its name (`{ns}name`), its resource's share
 * and path (kept as given and lowercased in the key) and the fixed overheads. Each property counts its resource's
 * path and objects, so that what a user's properties cost is all theirs to count (a resource with several
 * properties is counted more than it takes).
 */
export function memoryCost(share: string, path: string, name: string, p: StoredProperty): number {
  return stringBytes(p.json) + stringBytes(name) + 2 * stringBytes(share + path) + PROPERTY_OVERHEAD + RESOURCE_OVERHEAD;
}

/** A string takes one byte per character while all are Latin-1, two for each otherwise. */
function stringBytes(s: string): number {
  return /[^\0-\xff]/.test(s) ? 2 * s.length : s.length;
}

/** memoryCost of the properties in `set`, or of those of them `owner` set. */
export function costOf(share: string, path: string, set: PropertySet | undefined, owner?: string): number {
  let bytes = 0;
  for (const [name, p] of set ?? []) if (owner === undefined || p.owner === owner) bytes += memoryCost(share, path, name, p);
  return bytes;
}

/** The properties after `patches`, in document order, each set by `owner`. */
export function patched(current: PropertySet | undefined, patches: readonly PropertyPatch[], owner: string): PropertySet {
  const next: PropertySet = new Map(current);
  for (const p of patches) {
    if ('set' in p) next.set(clarkName(p.set.ns, p.set.name), { json: JSON.stringify(p.set), owner });
    else next.delete(clarkName(p.remove.ns, p.remove.name));
  }
  return next;
}

/** What is counted against the per-user and total bounds now: `user`, what the patching user's properties cost. */
export interface PropertyUsage {
  user: number;
  total: number;
}

/**
 * The bound a change of one resource's properties from `before` to `next` (by `owner`) would pass, counted against
 * `usage`; undefined when it passes none. A change that shrinks is allowed past a bound, so that a resource over a
 * lowered bound can be cleaned up.
 */
export function patchRefusal(
  limits: PropertyLimits, resource: { share: string; path: string }, before: PropertySet | undefined, next: PropertySet, owner: string, usage: PropertyUsage,
): PropertyLimit | undefined {
  const { share, path } = resource;
  const beforeSize = before?.size ?? 0;
  if (next.size > limits.maxPerResource && next.size > beforeSize) return 'max_per_resource';
  const bytes = sizeOf(next);
  if (bytes > (before ? sizeOf(before) : 0) && bytes > limits.maxResourceSize) return 'max_resource_size';
  const ownBefore = costOf(share, path, before, owner);
  const ownAfter = costOf(share, path, next, owner);
  if (ownAfter > ownBefore && usage.user - ownBefore + ownAfter > limits.maxUserSize) return 'max_user_size';
  const growth = costOf(share, path, next) - costOf(share, path, before);
  if (growth > 0 && usage.total + growth > limits.maxTotalSize) return 'max_total_size';
  return undefined;
}

/** The bound properties that cost `added` and follow a COPY would pass (then none follow), counted against `usage`. */
export function copyRefusal(limits: PropertyLimits, added: number, usage: PropertyUsage): PropertyLimit | undefined {
  if (added === 0) return undefined;
  if (usage.user + added > limits.maxUserSize) return 'max_user_size';
  if (usage.total + added > limits.maxTotalSize) return 'max_total_size';
  return undefined;
}
