/**
 * One share (or one folder's subtree of it) brought in line with the index: the ordered walk merged with the indexed pages (diff.ts), and each
 * difference applied with bounded concurrency: missing and changed pages read (by the smb-reader pool) and handed
 * to the writer (rendered and written by the indexer pool), documents of deleted or unreadable pages removed. With `force` (the reindex command) unchanged pages
 * are written too; a dry run reads no page and writes nothing, it only counts.
 *
 * It stops at the first failure that is not about one page (an SMB connection, Elasticsearch): what was applied
 * until then is correct, and the next pass does the rest.
 */
import type { Client } from '@elastic/elasticsearch';
import type { BulkWriter } from '../operations.js';
import { IndexWriter } from './index-writer.js';
import { indexedPages } from './inventory.js';
import { documentId } from '../../wiki/document-id.js';
import { diffShare, groupGone, type DiffItem, type GoneInFolder } from './diff.js';
import type { FolderListing, ListedPageFacts, NameListing, PageOutcome } from '../listing.js';
import { mapConcurrent } from '../../common/map-concurrent.js';
import { walkWikiPages } from './ordered-walk.js';
import { readAhead } from '../../common/read-ahead.js';
import type { Logger } from '../../common/logger.js';
import { pathId } from '../../search/log.js';

/** Where one share's pages come from: in the service, the smb-reader pool. */
export interface ShareSource {
  /**
   * With `withContent`, the pages' bytes as well where they could be read with the listing (ListedPageFacts); a
   * source may leave them out.
   */
  listFolder(path: string, withContent?: boolean): Promise<FolderListing>;
  /** The names in a folder, to confirm deletions. */
  listNames(path: string): Promise<NameListing>;
  /**
   * The page read; with `known`, only its content is read, and nothing when the listing read it too (listedPage, as
   * the service's source does; see src/indexing/smb-reader/wiki-reads.ts).
   */
  readPage(path: string, known?: ListedPageFacts): Promise<PageOutcome>;
}

/** What a pass (or a dry run: what it would do) did to one share. Updated while it runs. */
export interface ShareCounts {
  /** Pages found on the share that the indexer account may read. */
  seen: number;
  /** Pages that were not in the index. */
  added: number;
  /** Pages whose version token (size, modification time, ACL) changed. */
  updated: number;
  /** Pages whose version token matched; a forced run writes them anyway. */
  unchanged: number;
  /** Documents written (delivered to Elasticsearch; in a dry run: that would be written). */
  indexed: number;
  /** Documents deleted (delivered; in a dry run: that would be deleted): their page is gone or unreadable. */
  removed: number;
  /** Pages (and pages below folders) the indexer account may not read. */
  unreadable: number;
  /** Pages that could not be read, rendered or written; tried again at the next pass. */
  failed: number;
  /** Folders that could not be listed for another reason than access; what the index held below them was kept. */
  skippedFolders: number;
}

export function emptyCounts(): ShareCounts {
  return { seen: 0, added: 0, updated: 0, unchanged: 0, indexed: 0, removed: 0, unreadable: 0, failed: 0, skippedFolders: 0 };
}

export function addCounts(total: ShareCounts, part: ShareCounts): void {
  for (const key of Object.keys(total) as (keyof ShareCounts)[]) total[key] += part[key];
}

interface SharePassOptions {
  server: string;
  share: string;
  /** Only the pages below this folder (as written): a change watch's pass of the subtree it saw change. Default '' (all). */
  folder?: string;
  source: ShareSource;
  /** Reads the index's inventory of the share. */
  client: Client;
  /** Renders and writes the batches (the indexer pool in the service). */
  bulk: BulkWriter;
  alias: string;
  /** Count what would change, write nothing. */
  dryRun: boolean;
  /** Write unchanged pages too. */
  force: boolean;
  /** Differences applied at once. */
  concurrency: number;
  /** Folder listings requested ahead of the walk, per level. */
  lookahead: number;
  /** Stops the pass between pages (a cancelled reindex, a shutdown). */
  signal: AbortSignal;
  /** Filled in as the pass goes. */
  counts: ShareCounts;
  log: Logger;
}

type Outcome = 'added' | 'updated' | 'unchanged';

/** Indexed documents fetched per request. */
const INDEX_PAGE = 2000;
/** Deleted pages confirmed with one listing of their `.wiki/` folder, at most this many at once. */
const GONE_GROUP = 500;

/** A name as SMB compares it: case-insensitively (and macOS clients write NFD). */
function comparableName(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

export async function runSharePass(options: SharePassOptions): Promise<void> {
  const { server, share, source, counts, log } = options;
  const writer = options.dryRun
    ? null
    : new IndexWriter({
        bulk: options.bulk,
        target: { alias: options.alias },
        log,
        onDelivered: ({ upserted, deleted, rejected, notRendered }) => {
          counts.indexed += upserted;
          counts.removed += deleted;
          counts.failed += rejected + notRendered.length;
          for (const { page, error } of notRendered) log.warn({ share, page: pathId(share, page.path), error }, 'wiki page not indexed');
        },
      });

  const indexPage = async (path: string, facts: ListedPageFacts, outcome: Outcome, indexedId: string | null): Promise<void> => {
    if (writer === null) {
      counts[outcome]++;
      counts.indexed++;
      return;
    }
    const loaded = await source.readPage(path, facts);
    switch (loaded.status) {
      case 'read':
        await writer.index(loaded.page);
        counts[outcome]++;
        return;
      case 'gone':
      case 'denied':
        // Gone or locked away since the walk: whatever the index holds for it goes.
        if (loaded.status === 'denied') counts.unreadable++;
        if (indexedId !== null) await remove(indexedId);
        return;
      case 'failed':
        counts.failed++;
        log.warn({ share, page: pathId(share, path), error: loaded.error }, 'wiki page not indexed');
        return;
    }
  };

  const remove = async (id: string): Promise<void> => {
    if (writer === null) counts.removed++;
    else await writer.delete(id);
  };

  /**
   * Documents without a page in the walk are deleted only if their files are really gone (see DiffItem 'gone'):
   * one listing of their `.wiki/` folder tells which files are still there.
   */
  const removeGoneInFolder = async ({ wikiDir, pages }: GoneInFolder): Promise<void> => {
    const listing = await source.listNames(wikiDir);
    if (listing.state === 'failed') return;
    const present = new Set(listing.state === 'listed' ? listing.names.map(comparableName) : []);
    for (const page of pages) {
      if (!present.has(comparableName(page.path.slice(page.path.lastIndexOf('/') + 1)))) await remove(page.id);
    }
  };

  const apply = async (item: DiffItem | GoneInFolder): Promise<void> => {
    switch (item.kind) {
      case 'gone-in-folder':
        return removeGoneInFolder(item);
      case 'missing':
        counts.seen++;
        return indexPage(item.path, item.facts, 'added', null);
      case 'changed':
        counts.seen++;
        return indexPage(item.path, item.facts, 'updated', item.id);
      case 'unchanged':
        counts.seen++;
        if (options.force) return indexPage(item.path, item.facts, 'unchanged', item.id);
        counts.unchanged++;
        return;
      case 'gone':
        // Not a page's path at all (groupGone passes only those on): nothing to confirm.
        return remove(item.id);
      case 'misplaced':
        return remove(item.id);
      case 'unreadable':
        counts.unreadable++;
        if (item.id !== null) await remove(item.id);
        return;
      case 'denied':
        log.info({ share, folder: pathId(share, item.prefix) }, 'wiki pass: the indexer account may not list this folder; nothing below it is indexed');
        return;
      case 'skipped':
        counts.skippedFolders++;
        log.warn({ share, folder: pathId(share, item.prefix), reason: item.reason, kept: item.kept }, 'wiki pass: folder not listed, its documents kept as they are');
        return;
    }
  };

  const folder = options.folder ?? '';
  // A forced run writes every page: their bytes come with the listing, in the open that reads their ACL.
  const withContent = options.force && !options.dryRun;
  const walk = walkWikiPages((path) => source.listFolder(path, withContent), { lookahead: options.lookahead, from: folder });
  // The index side comes a page of documents per request; reading two ahead keeps those requests off the merge's path.
  const inventory = indexedPages(options.client, { server, share }, { alias: options.alias, pageSize: INDEX_PAGE, folder });
  const indexed = readAhead(inventory, 2);
  const diff = groupGone(diffShare(walk, indexed, (path) => documentId(server, share, path)), GONE_GROUP);
  try {
    for await (const _ of mapConcurrent(diff, options.concurrency, apply)) {
      if (options.signal.aborted) break;
    }
  } finally {
    // What was decided until a stop or failure is delivered (or fails again, when Elasticsearch is the problem).
    await writer?.flush();
  }
}
