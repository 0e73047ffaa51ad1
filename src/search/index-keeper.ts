/**
 * Keeps the wiki index in step with the shares; the reconciler actor runs one.
 * - prepare(): the alias exists and fits this build. An older mapping is rebuilt from a full walk into the next
 *   versioned index and the alias switched atomically; searches use the old index until the switch.
 * - pageChanged(): the post-write hook. Changes wait in a bounded queue; each page is read and rendered through
 *   the PageSource (the worker pools) and written in bulk batches. Nothing is buffered for an unavailable
 *   Elasticsearch: such changes are dropped and counted, and the next pass repairs the index.
 * - reconcile(): a full pass. Every share's pages, with version tokens, are diffed against the index: missing or
 *   changed pages are indexed, documents whose file is gone are deleted.
 */
import type { Client } from '@elastic/elasticsearch';
import PQueue from 'p-queue';
import type { PageRead, WikiListing } from '../messages/pools.js';
import type { PageAddress, PageChange } from '../messages/reconciler.js';
import { documentId, type WikiDocument, type WikiPageSource } from '../wiki/document.js';
import { isWikiPage } from '../wiki/layout.js';
import { BulkIndexer, type BulkIndexerOptions, type BulkStats } from './bulk.js';
import { IndexManager } from './index-manager.js';
import { indexedPages } from './inventory.js';
import { describeError, silentLog, type SearchLog } from './log.js';
import { DEFAULT_ALIAS, type TextAnalyzer } from './mapping.js';

/** Where pages come from: in the service, the smb-reader and indexer pools. */
export interface PageSource {
  listPages(server: string, share: string): Promise<WikiListing>;
  /** Null when the file does not exist. */
  readPage(page: PageAddress): Promise<PageRead | null>;
  renderPage(source: WikiPageSource): Promise<WikiDocument>;
}

/** A configured share and the server it lives on. */
export interface IndexedShare {
  server: string;
  share: string;
}

export interface IndexKeeperOptions {
  client: Client;
  source: PageSource;
  shares: readonly IndexedShare[];
  /** Default `wiki-md`. */
  alias?: string;
  /** Post-write hook changes that may wait; more are dropped and counted. Default 1000. */
  maxQueued?: number;
  /** Pages read and rendered at once, by the hook and by a pass each. Default 4. */
  concurrency?: number;
  bulk?: Pick<BulkIndexerOptions, 'maxOperations' | 'flushIntervalMs' | 'refresh'>;
  /** Passed to IndexManager: wait before deleting the old index after a rebuild. */
  oldIndexGraceMs?: number;
  log?: SearchLog;
}

/**
 * `unprepared`: the alias is not known to exist (Elasticsearch not reached yet), nothing is written.
 * `outdated`: the alias has an older mapping and awaits a rebuild; writes go through the alias meanwhile.
 * `newer_mapping`: a newer build owns the index; this one writes nothing.
 */
export type IndexStatus = 'unprepared' | 'outdated' | 'rebuilding' | 'ready' | 'newer_mapping';

export interface PassSummary {
  startedAt: string;
  durationMs: number;
  /** Pages found on the shares. */
  listed: number;
  /** Pages read, rendered and sent because they were missing or changed. */
  indexed: number;
  /** Documents removed because their file is gone. */
  deleted: number;
  /** Pages the indexer account may not read. */
  unreadable: number;
  /** Pages that could not be read or rendered. */
  failed: number;
  /** Operations of this pass the bulk writer could not deliver. */
  dropped: number;
  /** What failed as a whole (the index, or a share's listing). */
  errors: string[];
}

export interface HookStats {
  queued: number;
  running: number;
  applied: number;
  /** Changes not to `.wiki/*.md` files. */
  ignored: number;
  failed: number;
  /** Refused because the index was not writable or the queue was full. */
  dropped: number;
}

export interface IndexKeeperStats {
  alias: string;
  status: IndexStatus;
  index: string | null;
  analyzer: TextAnalyzer | null;
  hook: HookStats;
  bulk: BulkStats;
  /** Everything not delivered: hook refusals plus bulk drops. */
  dropped: number;
  passes: number;
  lastPass: PassSummary | null;
}

/** Pages read and rendered per step of a pass or rebuild. */
const CHUNK = 32;

export class WikiIndexKeeper {
  readonly alias: string;
  private readonly client: Client;
  private readonly source: PageSource;
  private readonly shares: readonly IndexedShare[];
  private readonly manager: IndexManager;
  private readonly writer: BulkIndexer;
  private readonly batchSize: number;
  private readonly hook: PQueue;
  private readonly maxQueued: number;
  private readonly log: SearchLog;
  private status: IndexStatus = 'unprepared';
  private index: { name: string; analyzer: TextAnalyzer } | null = null;
  private readonly hookCounts = { applied: 0, ignored: 0, failed: 0, dropped: 0 };
  private running: Promise<PassSummary> | undefined;
  private passes = 0;
  private lastPass: PassSummary | null = null;

  constructor(options: IndexKeeperOptions) {
    this.client = options.client;
    this.source = options.source;
    this.shares = options.shares;
    this.alias = options.alias ?? DEFAULT_ALIAS;
    this.log = options.log ?? silentLog;
    this.maxQueued = options.maxQueued ?? 1000;
    this.batchSize = options.bulk?.maxOperations ?? 500;
    this.manager = new IndexManager({
      client: this.client,
      alias: this.alias,
      log: this.log,
      ...(options.oldIndexGraceMs === undefined ? {} : { oldIndexGraceMs: options.oldIndexGraceMs }),
    });
    this.writer = new BulkIndexer({ client: this.client, index: this.alias, log: this.log, ...options.bulk });
    this.hook = new PQueue({ concurrency: options.concurrency ?? 4 });
  }

  private get writable(): boolean {
    return this.status === 'ready' || this.status === 'outdated' || this.status === 'rebuilding';
  }

  /** Makes sure the alias exists and fits this build, rebuilding from the shares when its mapping is older. */
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
      const rebuilt = await this.manager.rebuildIndex(this.allDocuments());
      this.index = { name: rebuilt.to, analyzer: rebuilt.analyzer };
      this.status = 'ready';
    } catch (error) {
      this.status = 'outdated';
      throw error;
    }
  }

  /** The post-write hook: queues the change, or drops and counts it. Never throws. */
  pageChanged(change: PageChange): void {
    if (!this.writable || this.hook.size >= this.maxQueued) {
      this.hookCounts.dropped++;
      return;
    }
    void this.hook.add(async () => {
      try {
        await this.apply(change);
      } catch (error) {
        this.hookCounts.failed++;
        this.log.warn({ change, ...describeError(error) }, 'post-write hook: page not indexed');
      }
    });
  }

  /** A full pass (one at a time: a second call while one runs gets the running one). */
  reconcile(): Promise<PassSummary> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  stats(): IndexKeeperStats {
    const bulk = this.writer.stats;
    return {
      alias: this.alias,
      status: this.status,
      index: this.index?.name ?? null,
      analyzer: this.index?.analyzer ?? null,
      hook: { queued: this.hook.size, running: this.hook.pending, ...this.hookCounts },
      bulk,
      dropped: this.hookCounts.dropped + bulk.dropped,
      passes: this.passes,
      lastPass: this.lastPass,
    };
  }

  /** Lets queued changes finish (up to the timeout), then delivers what is pending. */
  async close(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.hook.onIdle(), overrun]);
    clearTimeout(timer);
    this.hook.clear();
    await this.writer.close();
  }

  private async apply(change: PageChange): Promise<void> {
    switch (change.type) {
      case 'page-written':
        await this.indexPage(change.page);
        break;
      case 'page-deleted':
        this.removePage(change.page);
        break;
      case 'page-moved':
        this.removePage(change.from);
        await this.indexPage(change.to);
        break;
    }
  }

  private async indexPage(page: PageAddress): Promise<void> {
    if (!isWikiPage(page.path)) {
      this.hookCounts.ignored++;
      return;
    }
    const doc = await this.load(page);
    if (doc === null) this.writer.delete(documentId(page.server, page.share, page.path));
    else this.writer.upsert(doc);
    this.hookCounts.applied++;
  }

  private removePage(page: PageAddress): void {
    if (!isWikiPage(page.path)) {
      this.hookCounts.ignored++;
      return;
    }
    this.writer.delete(documentId(page.server, page.share, page.path));
    this.hookCounts.applied++;
  }

  /** The page's index document; null when the file does not exist. */
  private async load(page: PageAddress): Promise<WikiDocument | null> {
    const read = await this.source.readPage(page);
    return read === null ? null : this.source.renderPage({ ...page, ...read });
  }

  private async pass(): Promise<PassSummary> {
    const started = Date.now();
    const droppedBefore = this.writer.stats.dropped;
    const summary: PassSummary = {
      startedAt: new Date(started).toISOString(),
      durationMs: 0,
      listed: 0,
      indexed: 0,
      deleted: 0,
      unreadable: 0,
      failed: 0,
      dropped: 0,
      errors: [],
    };
    let prepared = true;
    try {
      await this.prepare();
    } catch (error) {
      prepared = false;
      summary.errors.push(`index ${this.alias}: ${describeError(error).error}`);
    }
    // An index that could not be checked could not be diffed either: the shares are not walked.
    if (prepared && this.writable) {
      for (const share of this.shares) {
        try {
          await this.reconcileShare(share, summary);
        } catch (error) {
          summary.errors.push(`share ${share.share}: ${describeError(error).error}`);
        }
      }
      await this.writer.flush();
    } else if (this.status === 'newer_mapping') {
      summary.errors.push(`index ${this.index?.name} has a newer mapping than this build; not writing to it`);
    }
    summary.dropped = this.writer.stats.dropped - droppedBefore;
    summary.durationMs = Date.now() - started;
    this.passes++;
    this.lastPass = summary;
    if (summary.errors.length === 0 && summary.dropped === 0 && summary.failed === 0) {
      this.log.info({ ...summary }, 'wiki index pass finished');
    } else {
      this.log.warn({ ...summary }, 'wiki index pass finished with problems');
    }
    return summary;
  }

  private async reconcileShare({ server, share }: IndexedShare, summary: PassSummary): Promise<void> {
    const listing = await this.source.listPages(server, share);
    summary.listed += listing.pages.length;
    summary.unreadable += listing.unreadable.length;
    const indexed = new Map<string, string>();
    for await (const page of indexedPages(this.client, share, { alias: this.alias })) indexed.set(page.id, page.version);

    const stale: string[] = [];
    for (const page of listing.pages) {
      const id = documentId(server, share, page.path);
      if (indexed.get(id) !== page.version) stale.push(page.path);
      indexed.delete(id);
    }
    for (const id of indexed.keys()) {
      this.writer.delete(id);
      summary.deleted++;
    }
    for (let i = 0; i < stale.length; i += CHUNK) {
      await Promise.all(
        stale.slice(i, i + CHUNK).map(async (path) => {
          try {
            const doc = await this.load({ server, share, path });
            if (doc === null) this.writer.delete(documentId(server, share, path));
            else {
              this.writer.upsert(doc);
              summary.indexed++;
            }
          } catch (error) {
            summary.failed++;
            this.log.warn({ share, path, ...describeError(error) }, 'wiki page not indexed');
          }
        }),
      );
      // A pass produces operations faster than the hook does: wait for each full batch instead of dropping.
      if (this.writer.pendingCount >= this.batchSize) await this.writer.flush();
    }
  }

  /** Every page of every share as a document, for a rebuild; pages that cannot be read are left out and logged. */
  private async *allDocuments(): AsyncGenerator<WikiDocument> {
    for (const { server, share } of this.shares) {
      const { pages } = await this.source.listPages(server, share);
      for (let i = 0; i < pages.length; i += CHUNK) {
        const docs = await Promise.all(
          pages.slice(i, i + CHUNK).map((page) =>
            this.load({ server, share, path: page.path }).catch((error: unknown) => {
              this.log.warn({ share, path: page.path, ...describeError(error) }, 'wiki page left out of the rebuild');
              return null;
            }),
          ),
        );
        for (const doc of docs) if (doc !== null) yield doc;
      }
    }
  }
}
