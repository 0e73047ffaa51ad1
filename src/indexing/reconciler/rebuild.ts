/**
 * `reindex --rebuild`: every page of every share read and rendered into a new versioned index, and the alias switched to
 * it at the end (IndexManager.rebuildIndex, which also copies the documents of shares other proxies serve). Searches use the old index until the switch; a rebuild that fails or
 * is cancelled removes the new index and leaves the alias where it was.
 */
import type { IndexManager, RebuildResult } from './index-manager.js';
import type { BulkWriter } from '../operations.js';
import type { Logger } from '../../common/logger.js';
import { pathId } from '../../search/log.js';
import type { ReadPage } from '../listing.js';
import { flatten } from '../../common/flatten.js';
import { mapConcurrent } from '../../common/map-concurrent.js';
import { walkWikiPages, type WalkItem } from './ordered-walk.js';
import type { ShareCounts, ShareSource } from './share-pass.js';

interface RebuildShare {
  server: string;
  share: string;
  source: ShareSource;
  /** Filled in as the rebuild goes. */
  counts: ShareCounts;
}

interface RebuildOptions {
  manager: IndexManager;
  /** Renders and writes the new index's batches (the indexer pool in the service). */
  bulk: BulkWriter;
  shares: readonly RebuildShare[];
  concurrency: number;
  lookahead: number;
  signal: AbortSignal;
  /** Called when a share's walk starts. */
  onShare(share: string): void;
  log: Logger;
}

class RebuildCancelledError extends Error {
  override readonly name = 'RebuildCancelledError';
}

async function* sharePages(target: RebuildShare, options: RebuildOptions): AsyncGenerator<ReadPage> {
  const { share, source, counts } = target;
  const load = async (item: WalkItem): Promise<ReadPage | null> => {
    if (item.kind === 'unreadable') counts.unreadable++;
    if (item.kind !== 'page') return null;
    counts.seen++;
    const loaded = await source.readPage(item.path, item.facts);
    if (loaded.status === 'read') {
      counts.added++;
      counts.indexed++;
      return loaded.page;
    }
    if (loaded.status === 'denied') counts.unreadable++;
    if (loaded.status === 'failed') {
      counts.failed++;
      options.log.warn({ share, page: pathId(share, item.path), error: loaded.error }, 'wiki page left out of the rebuild');
    }
    return null;
  };
  // A rebuild writes every page, as a forced reindex does: each is read in the open of its listing (withContent).
  const walk = walkWikiPages((path) => source.listFolder(path, true), { lookahead: options.lookahead });
  for await (const doc of mapConcurrent(flatten(walk), options.concurrency, load)) {
    if (options.signal.aborted) throw new RebuildCancelledError('rebuild cancelled; the alias stays on the old index');
    if (doc !== null) yield doc;
  }
}

export async function rebuildFromShares(options: RebuildOptions): Promise<RebuildResult> {
  async function* everything(): AsyncGenerator<ReadPage> {
    for (const target of options.shares) {
      options.onShare(target.share);
      yield* sharePages(target, options);
    }
  }
  return options.manager.rebuildIndex(everything(), options.shares.map(({ server, share }) => ({ server, share })), options.bulk);
}
