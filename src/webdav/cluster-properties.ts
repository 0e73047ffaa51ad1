// The dead properties of proxies that share state (cluster.shared_state: elasticsearch): one document per resource
// in the cluster (its id the SHA-256 of the resource's key), holding the properties' JSON, who set each, the file
// they were set on and what they cost (property-budget.ts). A resource's change is a compare-and-set on the version
// read (a GET by id: real-time), redone when another proxy changed it first. Every write also refreshes the index
// (`refresh: true`), because what a MOVE, COPY or DELETE of a folder carries along, and what the per-user and total
// bounds count, are found by a search, which sees only refreshed documents; a write is therefore a few
// milliseconds dearer, and writes of properties are rare beside reads of them (a GET by id, never a search).
// Elasticsearch answers once the change is in the translog of the shard's copies: a proxy that dies loses none.
import { createHash } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '../common/logger.js';
import { answeredWith, ensureIndex, retryOnConflict } from '../search/shared-state.js';
import { isWithin, resourceKey, type DavResource } from './dav-path.js';
import type { LockDepth } from './locks.js';
import {
  copyRefusal, costOf, patched, patchRefusal, propertySet, type PropertyLimit, type PropertyLimits, type PropertyPatch, type PropertySet, type PropertyUsage,
} from './property-budget.js';
import type { PropertyStore } from './property-store.js';
import { ClusterCalls } from './cluster-calls.js';
import type { XmlElement } from './xml.js';

/** Documents per page of a search for the resources below a folder or of a sweep. */
const PAGE = 1_000;

/** A resource's document: `share`/`path` as given, `key_*` lowercased (SMB names compare case-insensitively). */
interface PropertyDocument {
  share: string;
  path: string;
  key_share: string;
  key_path: string;
  file?: string;
  /** Each property's JSON, and who set it (`owners`, same order). */
  properties: string[];
  owners: string[];
  /** memoryCost of all its properties, and per owner: what the total and per-user bounds add up. */
  cost: number;
  costs: { owner: string; bytes: number }[];
}

interface Found {
  id: string;
  doc: PropertyDocument;
  version: { seqNo: number; primaryTerm: number };
}

export function propertyDocId(resource: DavResource): string {
  return createHash('sha256').update(resourceKey(resource)).digest('hex');
}

export class ClusterProperties implements PropertyStore {
  private seen = { size: 0, bytes: 0 };
  private readonly calls: ClusterCalls;

  constructor(private readonly client: Client, readonly index: string, private readonly limits: PropertyLimits, log: Logger) {
    this.calls = new ClusterCalls(index, log);
  }

  async open(replicas: number): Promise<void> {
    await ensureIndex(this.client, this.index, {
      settings: { number_of_shards: 1, number_of_replicas: replicas },
      mappings: {
        dynamic: false,
        properties: {
          key_share: { type: 'keyword' },
          key_path: { type: 'keyword' },
          cost: { type: 'long' },
          costs: { type: 'nested', properties: { owner: { type: 'keyword' }, bytes: { type: 'long' } } },
        },
      },
    });
    await this.usage('');
  }

  get size(): number {
    return this.seen.size;
  }

  get bytes(): number {
    return this.seen.bytes;
  }

  getMany(resources: readonly DavResource[]): Promise<XmlElement[][]> {
    return this.calls.run('reading dead properties', () => this.getManyNow(resources));
  }

  private async getManyNow(resources: readonly DavResource[]): Promise<XmlElement[][]> {
    if (resources.length === 0) return [];
    const { docs } = await this.client.mget<PropertyDocument>({ index: this.index, ids: resources.map(propertyDocId) });
    return docs.map((d) => ('found' in d && d.found && d._source ? d._source.properties.map((json) => JSON.parse(json) as XmlElement) : []));
  }

  patch(resource: DavResource, patches: readonly PropertyPatch[], owner: string, file?: string): Promise<PropertyLimit | undefined> {
    return this.calls.run('changing dead properties', () => this.patchNow(resource, patches, owner, file));
  }

  private async patchNow(resource: DavResource, patches: readonly PropertyPatch[], owner: string, file?: string): Promise<PropertyLimit | undefined> {
    const id = propertyDocId(resource);
    return retryOnConflict(async () => {
      const found = await this.get(id);
      const before = found && setOf(found.doc);
      const next = patched(before, patches, owner);
      const refused = patchRefusal(this.limits, resource, before, next, owner, await this.usage(owner));
      if (refused !== undefined) return refused;
      const cas = found && { if_seq_no: found.version.seqNo, if_primary_term: found.version.primaryTerm };
      if (next.size === 0) {
        if (found) await this.client.delete({ index: this.index, id, refresh: true, ...cas });
      } else {
        const document = documentOf(resource, next, file ?? found?.doc.file);
        if (found) await this.client.index({ index: this.index, id, document, refresh: true, ...cas });
        else await this.client.create({ index: this.index, id, document, refresh: true });
      }
      return undefined;
    }, [409, 404]);
  }

  remove(resource: DavResource): Promise<void> {
    return this.calls.run('dropping dead properties', () => this.removeNow(resource));
  }

  private async removeNow(resource: DavResource): Promise<void> {
    await this.write([], await this.within(resource));
  }

  move(from: DavResource, to: DavResource): Promise<void> {
    return this.calls.run('moving dead properties', () => this.moveNow(from, to));
  }

  private async moveNow(from: DavResource, to: DavResource): Promise<void> {
    const replaced = await this.within(to);
    const moved = await this.within(from);
    const placed = moved.map((f) => {
      const at = { share: to.share, path: to.path + f.doc.path.slice(from.path.length) };
      return { at, document: documentOf(at, setOf(f.doc), f.doc.file) };
    });
    await this.write(placed, [...replaced, ...moved]);
  }

  copy(from: DavResource, to: DavResource, depth: LockDepth, owner: string): Promise<PropertyLimit | undefined> {
    return this.calls.run('copying dead properties', () => this.copyNow(from, to, depth, owner));
  }

  private async copyNow(from: DavResource, to: DavResource, depth: LockDepth, owner: string): Promise<PropertyLimit | undefined> {
    const replaced = await this.within(to);
    const copied = depth === '0' ? [await this.get(propertyDocId(from))].filter((f) => f !== undefined) : await this.within(from);
    const targets = copied.map((f) => {
      const at = { share: to.share, path: to.path + f.doc.path.slice(from.path.length) };
      const properties: PropertySet = new Map([...setOf(f.doc)].map(([name, p]) => [name, { json: p.json, owner }]));
      return { at, document: documentOf(at, properties, undefined) };
    });
    const added = targets.reduce((n, t) => n + t.document.cost, 0);
    const refused = copyRefusal(this.limits, added, await this.usage(owner));
    await this.write(refused === undefined ? targets : [], replaced);
    return refused;
  }

  sweep(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    return this.calls.run('sweeping dead properties', () => this.sweepNow(identityAt));
  }

  private async sweepNow(identityAt: (resource: DavResource) => Promise<string | null | undefined>): Promise<number> {
    let dropped = 0;
    for await (const page of this.pages({ match_all: {} })) {
      for (const f of page) {
        const now = await identityAt(f.doc);
        if (now === undefined) continue;
        const cas = { index: this.index, id: f.id, refresh: true, if_seq_no: f.version.seqNo, if_primary_term: f.version.primaryTerm };
        try {
          if (now === null || (f.doc.file !== undefined && f.doc.file !== now)) {
            await this.client.delete(cas);
            dropped++;
          } else if (f.doc.file === undefined) {
            await this.client.index({ ...cas, document: { ...f.doc, file: now } });
          }
        } catch (err) {
          // Changed through a proxy meanwhile: that change knew better.
          if (!(answeredWith(err, 409) || answeredWith(err, 404))) throw err;
        }
      }
    }
    return dropped;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async get(id: string): Promise<Found | undefined> {
    try {
      const found = await this.client.get<PropertyDocument>({ index: this.index, id });
      return found._source && { id, doc: found._source, version: { seqNo: found._seq_no!, primaryTerm: found._primary_term! } };
    } catch (err) {
      if (answeredWith(err, 404)) return undefined;
      throw err;
    }
  }

  /** What the per-user (`owner`'s) and total bounds count now; also what size and bytes report. */
  private async usage(owner: string): Promise<PropertyUsage> {
    const answer = await this.client.search({
      index: this.index,
      size: 0,
      track_total_hits: true,
      aggs: {
        total: { sum: { field: 'cost' } },
        costs: { nested: { path: 'costs' }, aggs: { owner: { filter: { term: { 'costs.owner': owner } }, aggs: { bytes: { sum: { field: 'costs.bytes' } } } } } },
      },
    });
    type Sum = { value: number };
    const aggs = answer.aggregations as { total: Sum; costs: { owner: { bytes: Sum } } };
    const total = aggs.total.value;
    const hits = answer.hits.total;
    this.seen = { size: typeof hits === 'number' ? hits : hits?.value ?? 0, bytes: total };
    return { user: aggs.costs.owner.bytes.value, total };
  }

  /** The documents of the resource and of everything below it (a search: every write refreshed the index). */
  private async within(resource: DavResource): Promise<Found[]> {
    const path = resource.path.toLowerCase();
    const filter: object[] = [{ term: { key_share: resource.share.toLowerCase() } }];
    if (path !== '') filter.push({ bool: { should: [{ term: { key_path: path } }, { prefix: { key_path: `${path}/` } }], minimum_should_match: 1 } });
    const all: Found[] = [];
    for await (const page of this.pages({ bool: { filter } })) all.push(...page.filter((f) => isWithin(f.doc.path, resource.path)));
    return all;
  }

  private async *pages(query: object): AsyncGenerator<Found[]> {
    let after: (string | number)[] | undefined;
    for (;;) {
      const answer = await this.client.search<PropertyDocument>({
        index: this.index, size: PAGE, query, seq_no_primary_term: true,
        sort: [{ key_share: 'asc' }, { key_path: 'asc' }],
        ...(after ? { search_after: after } : {}),
      });
      const hits = answer.hits.hits;
      yield hits.map((h) => ({ id: h._id!, doc: h._source!, version: { seqNo: h._seq_no!, primaryTerm: h._primary_term! } }));
      if (hits.length < PAGE) return;
      after = hits[hits.length - 1]!.sort as (string | number)[];
    }
  }

  /** Writes `placed` and deletes `gone` (but what `placed` rewrites) in one refreshed _bulk; the new go in first. */
  private async write(placed: { at: DavResource; document: PropertyDocument }[], gone: Found[]): Promise<void> {
    const placedIds = new Set(placed.map((p) => propertyDocId(p.at)));
    const operations: object[] = [];
    for (const p of placed) operations.push({ index: { _index: this.index, _id: propertyDocId(p.at) } }, p.document);
    for (const g of gone) if (!placedIds.has(g.id)) operations.push({ delete: { _index: this.index, _id: g.id } });
    if (operations.length === 0) return;
    const answer = await this.client.bulk({ operations, refresh: true });
    if (answer.errors) {
      const failed = answer.items.map((i) => Object.values(i)[0]!).find((r) => r.error !== undefined && r.status !== 404);
      if (failed) throw new Error(`dead properties in ${this.index}: ${failed.error!.type}: ${failed.error!.reason ?? ''}`);
    }
  }
}

function setOf(doc: PropertyDocument): PropertySet {
  return propertySet(doc.properties.map((json) => JSON.parse(json) as XmlElement), doc.owners);
}

function documentOf(resource: DavResource, properties: PropertySet, file: string | undefined): PropertyDocument {
  const { share, path } = resource;
  const costs = new Map<string, number>();
  for (const [name, p] of properties) costs.set(p.owner, (costs.get(p.owner) ?? 0) + costOf(share, path, new Map([[name, p]])));
  return {
    share, path, key_share: share.toLowerCase(), key_path: path.toLowerCase(),
    ...(file === undefined ? {} : { file }),
    properties: [...properties.values()].map((p) => p.json),
    owners: [...properties.values()].map((p) => p.owner),
    cost: costOf(share, path, properties),
    costs: [...costs].map(([owner, bytes]) => ({ owner, bytes })),
  };
}
