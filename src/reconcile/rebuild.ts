/**
 * `reindex --rebuild`: every page of every share rendered into a new versioned index, and the alias switched to
 * it at the end (IndexManager.rebuildIndex, which also copies the documents of shares other proxies serve). Searches use the old index until the switch; a rebuild that fails or
 * is cancelled removes the new index and leaves the alias where it was.
 */
import type { Logger } from '../common/logger.js';
import type { IndexManager, RebuildResult } from '../search/index-manager.js';
import { pathId } from '../search/log.js';
import type { SourceDocument } from '../search/index-writer.js';
import { mapConcurrent } from './map-concurrent.js';
import { walkWikiPages, type WalkItem } from './ordered-walk.js';
import type { ShareCounts, ShareSource } from './share-pass.js';

export interface RebuildShare {
  server: string;
  share: string;
  source: ShareSource;
  /** Filled in as the rebuild goes. */
  counts: ShareCounts;
}

export interface RebuildOptions {
  manager: IndexManager;
  shares: readonly RebuildShare[];
  concurrency: number;
  lookahead: number;
  signal: AbortSignal;
  /** Called when a share's walk starts. */
  onShare(share: string): void;
  log: Logger;
}

export class RebuildCancelledError extends Error {
  override readonly name = 'RebuildCancelledError';
}

async function* shareDocuments(target: RebuildShare, options: RebuildOptions): AsyncGenerator<SourceDocument> {
  const { share, source, counts } = target;
  const load = async (item: WalkItem): Promise<SourceDocument | null> => {
    if (item.kind === 'unreadable') counts.unreadable++;
    if (item.kind !== 'page') return null;
    counts.seen++;
    const loaded = await source.loadDocument(item.path, item.facts);
    if (loaded.status === 'document') {
      counts.added++;
      counts.indexed++;
      // The JSON text goes to the writer as the pool thread rendered it.
      return { id: loaded.id, source: loaded.source };
    }
    if (loaded.status === 'denied') counts.unreadable++;
    if (loaded.status === 'failed') {
      counts.failed++;
      options.log.warn({ share, page: pathId(share, item.path), error: loaded.error }, 'wiki page left out of the rebuild');
    }
    return null;
  };
  const walk = walkWikiPages((path) => source.listFolder(path), { lookahead: options.lookahead });
  for await (const doc of mapConcurrent(walk, options.concurrency, load)) {
    if (options.signal.aborted) throw new RebuildCancelledError('rebuild cancelled; the alias stays on the old index');
    if (doc !== null) yield doc;
  }
}

export async function rebuildFromShares(options: RebuildOptions): Promise<RebuildResult> {
  async function* everything(): AsyncGenerator<SourceDocument> {
    for (const target of options.shares) {
      options.onShare(target.share);
      yield* shareDocuments(target, options);
    }
  }
  return options.manager.rebuildIndex(everything(), options.shares.map(({ server, share }) => ({ server, share })));
}
