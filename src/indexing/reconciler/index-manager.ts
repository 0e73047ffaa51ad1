/**
 * Lifecycle of the wiki index: the alias (`wiki-md`) on one versioned index (`wiki-md-vN`).
 *
 * N starts at MAPPING_VERSION; each rebuild creates the next N. What decides whether an index fits this build is
 * `_meta.mapping_version` of the aliased index, compared with MAPPING_VERSION.
 * Rebuild: create `wiki-md-v(N+1)`, fill it, move the alias with one atomic `_aliases` call, delete the old index.
 * Searches go through the alias and see either the old or the new index, never none.
 */
import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import type { ReadPage } from '../listing.js';
import type { BulkWriter } from '../operations.js';
import { IndexWriter, type SourceDocument } from './index-writer.js';
import { hitsByResponse, shareQuery, type IndexedShare } from './inventory.js';
import { describeSearchError } from '../../search/search-failure.js';
import { silentLog, type Logger } from '../../common/logger.js';
import { flatten } from '../../common/flatten.js';
import { pathId } from '../../search/log.js';
import {
  DEFAULT_ALIAS, indexMappings, indexSettings, MAPPING_VERSION, SINGLE_NODE_LAYOUT, type IndexLayout, type IndexMeta, type TextAnalyzer,
} from '../../search/mapping.js';
import { RebuildLease } from './rebuild-lock.js';

type EnsureIndexResult = {
  /** The index the alias points to. */
  index: string;
  mappingVersion: number;
  analyzer: TextAnalyzer;
} & (
  | { status: 'created' }
  | { status: 'ready' }
  /** The index has an older mapping: call rebuildIndex() with all pages. Search keeps working meanwhile. */
  | { status: 'migration_needed'; requiredVersion: number }
  /** A newer build created the index; this build must not write to it. */
  | { status: 'newer_mapping'; requiredVersion: number }
);

export interface RebuildResult {
  from: string | null;
  to: string;
  documents: number;
  analyzer: TextAnalyzer;
}

/** The index cannot be managed as asked (alias on several indices, a concrete index named like the alias, …). */
export class IndexStateError extends Error {
  override readonly name = 'IndexStateError';
}

interface IndexManagerOptions {
  client: Client;
  /** Alias name, default `wiki-md`; versioned indices are `<alias>-v<N>`. Tests use their own. */
  alias?: string;
  /** Shards, replicas and refresh interval of each index it creates; default: a single node's. */
  layout?: IndexLayout;
  /** Documents per `_bulk` request while rebuilding; default: the writer's. */
  rebuildBatchSize?: number;
  /** Wait after moving the alias before deleting the old index, so searches already routed there finish. */
  oldIndexGraceMs?: number;
  log?: Logger;
}

/** Documents of other proxies read per request while rebuilding. */
const COPY_PAGE = 1000;

function isNotFound(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.meta.statusCode === 404;
}

function isAlreadyExists(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.body?.error?.type === 'resource_already_exists_exception';
}

/**
 * Whether Elasticsearch refused a request because it does not know `analyzer`: a mapping naming it ("analyzer [x]
 * has not been configured in mappings") or `_analyze` with it ("failed to find analyzer [x]"), both answered 400.
 */
export function isUnknownAnalyzer(error: unknown, analyzer: string): boolean {
  if (!(error instanceof errors.ResponseError) || error.meta.statusCode !== 400) return false;
  const reasons = JSON.stringify(error.body?.error ?? '');
  return reasons.includes(`analyzer [${analyzer}] has not been configured`) || reasons.includes(`find analyzer [${analyzer}]`);
}

export class IndexManager {
  readonly alias: string;
  private readonly client: Client;
  private readonly layout: IndexLayout;
  private readonly rebuildBatchSize: number | undefined;
  private readonly oldIndexGraceMs: number;
  private readonly log: Logger;

  constructor(options: IndexManagerOptions) {
    this.client = options.client;
    this.alias = options.alias ?? DEFAULT_ALIAS;
    this.layout = options.layout ?? SINGLE_NODE_LAYOUT;
    this.rebuildBatchSize = options.rebuildBatchSize;
    this.oldIndexGraceMs = options.oldIndexGraceMs ?? 1000;
    this.log = options.log ?? silentLog;
  }

  indexName(generation: number): string {
    return `${this.alias}-v${generation}`;
  }

  /** N of `<alias>-vN`, or null for a name not of that form. */
  generationOf(index: string): number | null {
    const match = /^-v(\d+)$/.exec(index.slice(this.alias.length));
    return index.startsWith(this.alias) && match ? Number(match[1]) : null;
  }

  /**
   * Creates `index` with this build's mapping on `german` when the cluster knows that analyzer, else on `standard`
   * (a minimal Elasticsearch, such as one without the analysis-common module). Asks Elasticsearch by creating the
   * index, not by a module's name: whatever provides `german` counts, and creating needs no privilege beyond the
   * proxy's own indices (`_analyze` without an index would need the cluster privilege `manage`).
   */
  async createIndex(index: string): Promise<TextAnalyzer> {
    const settings = indexSettings(this.layout);
    try {
      await this.client.indices.create({ index, settings, mappings: indexMappings('german') });
      return 'german';
    } catch (error) {
      if (!isUnknownAnalyzer(error, 'german')) throw error;
    }
    this.log.warn({ index }, 'this Elasticsearch has no german analyzer: the index uses standard (no stemming, no umlaut folding)');
    await this.client.indices.create({ index, settings, mappings: indexMappings('standard') });
    return 'standard';
  }

  /** Whether `german` is known to the cluster, asked through an existing index (index privilege `manage` suffices). */
  private async germanAvailable(index: string): Promise<boolean> {
    try {
      await this.client.indices.analyze({ index, analyzer: 'german', text: 'Häuser' });
      return true;
    } catch (error) {
      if (isUnknownAnalyzer(error, 'german')) return false;
      throw error;
    }
  }

  /** The indices the alias points to ([] when there is no alias). */
  async aliasTargets(): Promise<string[]> {
    try {
      return Object.keys(await this.client.indices.getAlias({ name: this.alias })).sort();
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  async readMeta(index: string): Promise<IndexMeta> {
    const response = await this.client.indices.getMapping({ index });
    const meta = response[index]?.mappings._meta as Partial<IndexMeta> | undefined;
    return {
      mapping_version: meta?.mapping_version ?? this.generationOf(index) ?? 0,
      analyzer: meta?.analyzer === 'german' ? 'german' : 'standard',
    };
  }

  /**
   * Makes sure the alias exists: creates `<alias>-v<MAPPING_VERSION>` and the alias when missing, and otherwise
   * reports whether the aliased index fits this build. Throws when Elasticsearch is unreachable.
   */
  async ensureIndex(): Promise<EnsureIndexResult> {
    const targets = await this.aliasTargets();
    if (targets.length > 1) {
      throw new IndexStateError(`alias ${this.alias} points to several indices (${targets.join(', ')})`);
    }
    if (targets.length === 1) {
      const index = targets[0]!;
      const meta = await this.readMeta(index);
      const base = { index, mappingVersion: meta.mapping_version, analyzer: meta.analyzer };
      // An index made on `standard` before the cluster had `german` is rebuilt on it, like an older mapping.
      const analyzerOutdated = meta.analyzer === 'standard' && meta.mapping_version === MAPPING_VERSION && (await this.germanAvailable(index));
      if (meta.mapping_version === MAPPING_VERSION && !analyzerOutdated) return { ...base, status: 'ready' };
      const status = meta.mapping_version <= MAPPING_VERSION ? 'migration_needed' : 'newer_mapping';
      this.log.warn({ ...base, requiredVersion: MAPPING_VERSION }, `search index ${index}: ${status}`);
      return { ...base, status, requiredVersion: MAPPING_VERSION };
    }
    if (await this.client.indices.exists({ index: this.alias })) {
      throw new IndexStateError(`${this.alias} is a concrete index, not an alias; delete it or rebuild`);
    }
    const { index, analyzer } = await this.createVersionedIndex(MAPPING_VERSION);
    await this.switchAlias(null, index);
    this.log.info({ index, alias: this.alias, analyzer }, 'search index created');
    return { index, mappingVersion: MAPPING_VERSION, analyzer, status: 'created' };
  }

  /**
   * Creates `<alias>-v<generation>` with this build's mapping (see createIndex); an existing index of that name is
   * kept (a second process, or a start interrupted before the alias was set). Returns its analyzer.
   */
  async createVersionedIndex(generation: number): Promise<{ index: string; analyzer: TextAnalyzer }> {
    const index = this.indexName(generation);
    try {
      return { index, analyzer: await this.createIndex(index) };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      return { index, analyzer: (await this.readMeta(index)).analyzer };
    }
  }

  /** Points the alias from `from` (null: nowhere) to `to` in one atomic `_aliases` call. */
  async switchAlias(from: string | null, to: string): Promise<void> {
    const actions: estypes.IndicesUpdateAliasesAction[] = [];
    if (from !== null) actions.push({ remove: { index: from, alias: this.alias } });
    actions.push({ add: { index: to, alias: this.alias } });
    await this.client.indices.updateAliases({ actions });
  }

  /** Deletes an index; a missing one is fine. */
  async deleteIndex(index: string): Promise<void> {
    try {
      await this.client.indices.delete({ index });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /**
   * Builds the next versioned index, moves the alias to it atomically and deletes the old one. The new index gets
   * the documents of `source` (this service's shares, `own`; rendered and written by `bulk`, the indexer pool in the
   * service) and a copy of every other document of the old index:
   * other proxies sharing the alias keep their pages (their passes re-render them). Searches keep using the old
   * index until the switch. Changes written through the alias during the rebuild land in the old index: run the
   * drift reconciler afterwards (the other proxies' periodic passes bring over theirs). On failure the new index
   * is removed and the alias stays where it was. Only one proxy builds at a time (rebuild-lock.ts): another one's
   * rebuild fails with RebuildBusyError.
   */
  async rebuildIndex(source: AsyncIterable<ReadPage | SourceDocument>, own: readonly IndexedShare[], bulk: BulkWriter): Promise<RebuildResult> {
    const targets = await this.aliasTargets();
    if (targets.length > 1) {
      throw new IndexStateError(`alias ${this.alias} points to several indices (${targets.join(', ')})`);
    }
    const from = targets[0] ?? null;
    const generation = Math.max(MAPPING_VERSION, (from === null ? 0 : (this.generationOf(from) ?? 0)) + 1);
    const to = this.indexName(generation);
    const lease = await RebuildLease.acquire(this.client, this.alias, to, this.layout.replicas);
    let documents = 0;
    let analyzer: TextAnalyzer;
    try {
      // Under the lease, an index of that name is a leftover of an interrupted rebuild; never the aliased index.
      await this.deleteIndex(to);
      ({ analyzer } = await this.createVersionedIndex(generation));
      try {
        const copied = from === null ? 0 : await this.fill(to, this.otherDocuments(from, own), bulk);
        if (copied > 0) this.log.info({ from, to, documents: copied }, 'search index rebuild: documents of other shares copied');
        documents = await this.fill(to, source, bulk);
        await this.client.indices.refresh({ index: to });
        if (lease.lost) throw new IndexStateError(`the rebuild lease for ${to} was taken over; not switching the alias`);
        await this.switchAlias(from, to);
      } catch (error) {
        this.log.warn({ index: to, ...describeSearchError(error) }, 'search index rebuild failed, new index removed');
        await this.deleteIndex(to).catch(() => undefined);
        throw error;
      }
    } finally {
      await lease.release().catch(() => undefined);
    }
    this.log.info({ from, to, documents, analyzer }, 'search index rebuilt, alias switched');
    if (from !== null) {
      await new Promise((resolve) => setTimeout(resolve, this.oldIndexGraceMs));
      await this.deleteIndex(from);
    }
    return { from, to, documents, analyzer };
  }

  /**
   * The documents of `from` that are not of the `own` shares, as they are. Read page by page rather than with
   * `_reindex`, which is a module a minimal Elasticsearch may lack (the testbed's has none).
   */
  private async *otherDocuments(from: string, own: readonly IndexedShare[]): AsyncGenerator<SourceDocument> {
    const hits = hitsByResponse<unknown>(this.client, {
      index: from,
      size: COPY_PAGE,
      query: { bool: { must_not: own.map(shareQuery) } },
      // A document is one page of one share of one server: these three order them completely.
      sort: [{ server: 'asc' }, { share: 'asc' }, { path: 'asc' }],
    });
    for await (const hit of flatten(hits)) yield { id: hit._id!, source: JSON.stringify(hit._source) };
  }

  /**
   * Writes `source` (pages to render, documents as they are) into `index` with `bulk`; a document
   * Elasticsearch refuses fails the rebuild, a page that cannot be rendered is left out (logged).
   */
  private async fill(index: string, source: AsyncIterable<ReadPage | SourceDocument>, bulk: BulkWriter): Promise<number> {
    const writer = new IndexWriter({
      bulk,
      target: { index },
      log: this.log,
      onDelivered: ({ notRendered }) => notRendered.forEach(({ page, error }) => this.log.warn({ share: page.share, page: pathId(page.share, page.path), error }, 'wiki page left out of the rebuild')),
      ...(this.rebuildBatchSize === undefined ? {} : { maxOperations: this.rebuildBatchSize }),
    });
    for await (const doc of source) await ('content' in doc ? writer.index(doc) : writer.upsert(doc.id, doc.source));
    await writer.flush();
    const { upserted, rejected } = writer.counts;
    if (rejected > 0) throw new IndexStateError(`${rejected} documents rejected while filling ${index} (reasons in the log)`);
    return upserted;
  }
}
