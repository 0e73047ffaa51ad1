/**
 * The post-write hook: WebDAV's page changes, applied the way a pass applies a difference. Each written page is
 * read by the same smb-reader task as in a pass (src/indexing/smb-reader/wiki-reads.ts readPage: stat, ACL, size limit, bytes) and
 * handed to the pass's bulk writer (src/indexing/reconciler/index-writer.ts), whose batches the indexer pool renders and writes.
 *
 * Changes wait in a bounded queue; a change that finds the index not writable or the queue full is dropped and
 * counted, so a request never waits on the index. Operations are sent as a group commit: the first operation while
 * no batch is on its way waits `gatherMs` for the ones that come with it; operations that come while a batch is on
 * its way collect in the next one, which leaves as soon as that batch is answered (or when it is full). So one save
 * is sent within milliseconds, and many saves share batches that grow with Elasticsearch's answer time. After a
 * batch Elasticsearch took, `refresh` is asked to make it searchable (the service throttles it, refresh-throttle.ts),
 * rather than leaving it to the index's refresh interval. A batch Elasticsearch does not take is dropped and
 * counted, not buffered. The next pass repairs whatever was dropped.
 *
 * A page written over WebDAV is reported twice: by the save itself, and moments later by the share's change watch
 * (share-watch.ts), which sees the same save on the file server. So the hook remembers for a while the version token
 * of each page it indexed; a written page that still has it is settled by its stat and security descriptor alone
 * (counted as unchanged), not read, rendered and written again. A real change after the save changes the token.
 */
import PQueue from 'p-queue';
import type { BulkWriter } from '../operations.js';
import { IndexWriter } from './index-writer.js';
import { describeSearchError } from '../../search/search-failure.js';
import type { Logger } from '../../common/logger.js';
import { pathId } from '../../search/log.js';
import { documentId } from '../../wiki/document-id.js';
import { isWikiPage } from '../../wiki/layout.js';
import type { PageAddress, PageChange } from '../../wiki/page-change.js';
import type { ChangedPageOutcome } from '../listing.js';

export interface PageChangesOptions {
  /** Renders and writes the batches (the indexer pool in the service). */
  bulk: BulkWriter;
  alias: string;
  /**
   * The page read (by the smb-reader pool in the service), as a pass reads a page it has no facts of; 'unchanged'
   * without reading it when it still has `indexedVersion`.
   */
  readPage(page: PageAddress, indexedVersion?: string): Promise<ChangedPageOutcome>;
  /** Whether the index may be written now (prepared, and not owned by a newer build). */
  writable(): boolean;
  /** Asked after each batch Elasticsearch took, so that its pages become searchable (RefreshThrottle.request in the service). */
  refresh?(): void;
  /** Changes that may wait; more are dropped and counted. Default 1000. */
  maxQueued?: number;
  /** Pages loaded at once. Default 4. */
  concurrency?: number;
  /** How long the first operation while no batch is on its way waits for others to join its batch. Default 20 ms. */
  gatherMs?: number;
  /** How long the version token of an indexed page is remembered (the change watch's echo of a save comes within about 2 s). Default 10 s. */
  echoWindowMs?: number;
  log: Logger;
}

export interface HookStats {
  queued: number;
  running: number;
  applied: number;
  /** Changes not to `.wiki/*.md` files. */
  ignored: number;
  /** Pages that could not be read or rendered (too large, refused by the server, not Markdown the renderer takes): the index keeps what it had. */
  failed: number;
  /** Written pages that still had the version the hook had just indexed: only their stat and ACL were read. */
  unchanged: number;
  /** Refused because the index was not writable or the queue was full. */
  dropped: number;
}

export interface HookBulkStats {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch refused one by one. */
  failed: number;
  /** Operations of batches Elasticsearch could not take. */
  dropped: number;
}

export class PageChanges {
  private readonly options: PageChangesOptions;
  private readonly queue: PQueue;
  private readonly maxQueued: number;
  private readonly counts = { applied: 0, ignored: 0, failed: 0, unchanged: 0, dropped: 0 };
  /** Version tokens of the pages indexed lately, by document id, oldest first. */
  private readonly indexed = new Map<string, { version: string; at: number }>();
  /** The loads under way, by document id. */
  private readonly loading = new Map<string, Promise<void>>();
  private readonly bulk: HookBulkStats = { upserted: 0, deleted: 0, failed: 0, dropped: 0 };
  private writer: IndexWriter;
  /** Operations handed to the current writer. */
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Batches handed to flush() and not yet answered. */
  private sending = 0;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(options: PageChangesOptions) {
    this.options = options;
    this.maxQueued = options.maxQueued ?? 1000;
    this.queue = new PQueue({ concurrency: options.concurrency ?? 4 });
    this.writer = this.newWriter();
  }

  /** Queues the change (true), or drops and counts it (false). Never throws. */
  pageChanged(change: PageChange): boolean {
    if (this.closed || !this.options.writable() || this.queue.size >= this.maxQueued) {
      this.counts.dropped++;
      return false;
    }
    void this.queue.add(async () => {
      try {
        await this.apply(change);
      } catch (error) {
        this.counts.failed++;
        const page = change.type === 'page-moved' ? change.to : change.page;
        this.options.log.warn({ change: change.type, share: page.share, page: pathId(page.share, page.path), ...describeSearchError(error) }, 'post-write hook: page not indexed');
      }
    });
    return true;
  }

  stats(): { hook: HookStats; bulk: HookBulkStats } {
    return { hook: { queued: this.queue.size, running: this.queue.pending, ...this.counts }, bulk: { ...this.bulk } };
  }

  /** Takes no more changes, lets queued ones finish (up to the timeout), then delivers what is pending. */
  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.queue.onIdle(), overrun]);
    clearTimeout(timer);
    this.queue.clear();
    await this.flush();
  }

  private async apply(change: PageChange): Promise<void> {
    switch (change.type) {
      case 'page-written':
        return this.indexPage(change.page);
      case 'page-deleted':
        return this.removePage(change.page);
      case 'page-moved':
        await this.removePage(change.from);
        return this.indexPage(change.to);
    }
  }

  /** What a pass does with a page it found missing or changed (share-pass.ts indexPage). */
  private async indexPage(page: PageAddress): Promise<void> {
    if (!isWikiPage(page.path)) {
      this.counts.ignored++;
      return;
    }
    const id = documentId(page.server, page.share, page.path);
    // A second change of a page waits for the load of the first, so that it can compare with what that indexed.
    const earlier = this.loading.get(id);
    const load = (async () => {
      await earlier;
      const outcome = await this.options.readPage(page, this.indexedVersion(id));
      if (outcome.status === 'read') this.remember(id, outcome.page.version);
      if (outcome.status === 'gone' || outcome.status === 'denied') this.indexed.delete(id);
      return outcome;
    })();
    const settled = load.then(() => undefined, () => undefined);
    this.loading.set(id, settled);
    const loaded = await load.finally(() => {
      if (this.loading.get(id) === settled) this.loading.delete(id);
    });
    switch (loaded.status) {
      case 'unchanged':
        this.counts.unchanged++;
        return;
      case 'read':
        await this.write((writer) => writer.index(loaded.page));
        break;
      case 'gone':
      case 'denied':
        await this.write((writer) => writer.delete(id));
        break;
      case 'failed':
        this.counts.failed++;
        this.options.log.warn({ share: page.share, page: pathId(page.share, page.path), error: loaded.error }, 'wiki page not indexed');
        return;
    }
    this.counts.applied++;
  }

  private async removePage(page: PageAddress): Promise<void> {
    if (!isWikiPage(page.path)) {
      this.counts.ignored++;
      return;
    }
    const id = documentId(page.server, page.share, page.path);
    this.indexed.delete(id);
    await this.write((writer) => writer.delete(id));
    this.counts.applied++;
  }

  /** The version the hook indexed for the document lately, if it did. */
  private indexedVersion(id: string): string | undefined {
    const echoWindow = this.options.echoWindowMs ?? 10_000;
    for (const [oldest, { at }] of this.indexed) {
      if (Date.now() - at < echoWindow) break;
      this.indexed.delete(oldest);
    }
    return this.indexed.get(id)?.version;
  }

  private remember(id: string, version: string): void {
    this.indexed.delete(id); // to the end: the map stays in the order of indexing
    this.indexed.set(id, { version, at: Date.now() });
  }

  private async write(operation: (writer: IndexWriter) => Promise<void>): Promise<void> {
    this.written++;
    // While a batch is on its way, its answer sends this one (flush()).
    if (this.sending === 0) this.timer ??= setTimeout(() => void this.flush(), this.options.gatherMs ?? 20);
    try {
      await operation(this.writer);
    } catch {
      // The writer failed on an earlier batch: flush() counts what it did not deliver.
    }
  }

  /**
   * Sends the current writer's batch and starts a new writer; one flush at a time. When the batch is answered, the
   * operations that came meanwhile are sent at once.
   */
  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const writer = this.writer;
    const written = this.written;
    this.writer = this.newWriter();
    this.written = 0;
    this.sending++;
    this.flushing = this.flushing.then(async () => {
      try {
        await writer.flush();
        const { upserted, deleted } = writer.counts;
        if (upserted + deleted > 0) this.options.refresh?.();
      } catch (error) {
        const { upserted, deleted, rejected, notRendered } = writer.counts;
        const dropped = written - upserted - deleted - rejected - notRendered;
        this.bulk.dropped += dropped;
        this.options.log.warn({ index: this.options.alias, dropped, ...describeSearchError(error) }, 'search index unavailable, batch dropped');
      } finally {
        this.sending--;
        if (this.sending === 0 && this.written > 0) void this.flush();
      }
    });
    return this.flushing;
  }

  private newWriter(): IndexWriter {
    return new IndexWriter({
      bulk: this.options.bulk,
      target: { alias: this.options.alias },
      log: this.options.log,
      onDelivered: ({ upserted, deleted, rejected, notRendered }) => {
        this.bulk.upserted += upserted;
        this.bulk.deleted += deleted;
        this.bulk.failed += rejected;
        this.counts.failed += notRendered.length;
        for (const { page, error } of notRendered) this.options.log.warn({ share: page.share, page: pathId(page.share, page.path), error }, 'wiki page not indexed');
      },
    });
  }
}
