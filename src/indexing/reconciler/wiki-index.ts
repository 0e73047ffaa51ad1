/**
 * The state of the wiki index as the reconciler actor sees it: prepare() makes sure the alias exists and fits
 * this build. An alias on an older mapping is rebuilt from a walk of every share (rebuild.ts, as `reindex
 * --rebuild` does) into the next versioned index, and switched atomically; searches use the old index until then.
 */
import type { Client } from '@elastic/elasticsearch';
import type { BulkWriter } from '../operations.js';
import { IndexManager } from './index-manager.js';
import type { Logger } from '../../common/logger.js';
import type { IndexLayout, TextAnalyzer } from '../../search/mapping.js';
import { DEFAULT_CONCURRENCY, DEFAULT_LOOKAHEAD, type IndexGate, type ReconcilerShare } from './reconciler.js';
import { rebuildFromShares } from './rebuild.js';
import { emptyCounts, type ShareSource } from './share-pass.js';

/**
 * `unprepared`: the alias is not known to exist (Elasticsearch not reached yet), nothing is written.
 * `outdated`: the alias has an older mapping and awaits a rebuild; writes go through the alias meanwhile.
 * `newer_mapping`: a newer build owns the index; this one writes nothing.
 */
type IndexStatus = 'unprepared' | 'outdated' | 'rebuilding' | 'ready' | 'newer_mapping';

export interface WikiIndexStats {
  alias: string;
  status: IndexStatus;
  index: string | null;
  analyzer: TextAnalyzer | null;
}

interface WikiIndexOptions {
  client: Client;
  /** Renders and writes a migration's batches (the indexer pool in the service). */
  bulk: BulkWriter;
  alias: string;
  /** Of the indices it creates (elasticsearch.index); default: a single node's. */
  layout?: IndexLayout;
  shares: readonly ReconcilerShare[];
  source(share: ReconcilerShare): ShareSource;
  /** Passed to IndexManager: wait before deleting the old index after a rebuild. */
  oldIndexGraceMs?: number;
  log: Logger;
}

export class WikiIndex implements IndexGate {
  readonly alias: string;
  private readonly options: WikiIndexOptions;
  private readonly manager: IndexManager;
  private status: IndexStatus = 'unprepared';
  private index: { name: string; analyzer: TextAnalyzer } | null = null;
  private readonly stopping = new AbortController();

  constructor(options: WikiIndexOptions) {
    this.options = options;
    this.alias = options.alias;
    this.manager = new IndexManager({
      client: options.client,
      alias: options.alias,
      log: options.log,
      ...(options.layout === undefined ? {} : { layout: options.layout }),
      ...(options.oldIndexGraceMs === undefined ? {} : { oldIndexGraceMs: options.oldIndexGraceMs }),
    });
  }

  /** Whether the post-write hook may write through the alias. */
  get writable(): boolean {
    return this.status === 'ready' || this.status === 'outdated' || this.status === 'rebuilding';
  }

  async prepare(): Promise<void> {
    const result = await this.manager.ensureIndex();
    this.index = { name: result.index, analyzer: result.analyzer };
    if (result.status === 'newer_mapping') {
      this.status = 'newer_mapping';
      return;
    }
    if (result.status !== 'migration_needed') {
      this.status = 'ready';
      return;
    }
    this.status = 'rebuilding';
    try {
      const { shares, source, log } = this.options;
      const rebuilt = await rebuildFromShares({
        manager: this.manager,
        bulk: this.options.bulk,
        shares: shares.map((share) => ({ ...share, source: source(share), counts: emptyCounts() })),
        concurrency: DEFAULT_CONCURRENCY,
        lookahead: DEFAULT_LOOKAHEAD,
        signal: this.stopping.signal,
        onShare: () => undefined,
        log,
      });
      this.index = { name: rebuilt.to, analyzer: rebuilt.analyzer };
      this.status = 'ready';
    } catch (error) {
      this.status = 'outdated';
      throw error;
    }
  }

  refusal(): string | null {
    return this.status === 'newer_mapping' ? `${this.index?.name} has a newer mapping than this build; not writing to it` : null;
  }

  stats(): WikiIndexStats {
    return { alias: this.alias, status: this.status, index: this.index?.name ?? null, analyzer: this.index?.analyzer ?? null };
  }

  /** Cancels a migration that is running (the alias stays on the old index). */
  stop(): void {
    this.stopping.abort();
  }
}
