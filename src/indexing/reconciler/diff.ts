/**
 * The streaming diff of a share against the index: the ordered walk (ordered-walk.ts) and the indexed pages of
 * the share (src/indexing/reconciler/inventory.ts), both sorted by path in code point order and both yielded a step
 * (an array) at a time, merged item by item. Only the two current steps are held, so memory does not grow with the
 * number of pages.
 */
import type { IndexedPage } from './inventory.js';
import { folderKey } from '../../wiki/document-id.js';
import { wikiPageLocation } from '../../wiki/layout.js';
import { compareCodePoints } from '../../common/code-point-order.js';
import type { ListedPageFacts } from '../listing.js';
import { walkItemKey, type WalkItem } from './ordered-walk.js';

export type DiffItem =
  /** On the share, not in the index. `facts`: what the walk found out about the page. */
  | { kind: 'missing'; path: string; facts: ListedPageFacts }
  /** In both, but the version token differs. */
  | { kind: 'changed'; id: string; path: string; facts: ListedPageFacts }
  | { kind: 'unchanged'; id: string; path: string; facts: ListedPageFacts }
  /**
   * In the index, not found by the walk. Before deleting, make sure the file is really gone: it may have been
   * created after the walk passed its folder, or exist under another spelling of the same (case-insensitive) path.
   */
  | { kind: 'gone'; id: string; path: string }
  /** A page the indexer may not read, or a page below a folder it may not list; `id` when the index has it. */
  | { kind: 'unreadable'; id: string | null; path: string }
  /** A folder the indexer may not list. */
  | { kind: 'denied'; prefix: string }
  /** A folder that could not be listed; `kept` indexed documents below it were left alone. */
  | { kind: 'skipped'; prefix: string; reason: string; kept: number }
  /** An indexed document at a walked path but under another id (the share moved to another server): delete it. */
  | { kind: 'misplaced'; id: string; path: string };

/** One of the two sorted inputs went backwards: merging would produce wrong deletions, so the diff stops. */
export class OrderError extends Error {
  override readonly name = 'OrderError';
}

/**
 * Reads the items of an async iterator of steps (arrays) one item ahead, and checks that their keys ascend strictly;
 * the iterator is awaited only when a step is used up.
 */
class Cursor<T> {
  current: T | undefined;
  private last: string | undefined;
  private readonly iterator: AsyncIterator<readonly T[]>;
  private step: readonly T[] = [];
  private next = 0;

  constructor(
    source: AsyncIterable<readonly T[]>,
    private readonly keyOf: (item: T) => string,
    private readonly label: string,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  async advance(): Promise<void> {
    while (this.next === this.step.length) {
      const step = await this.iterator.next();
      if (step.done === true) {
        this.current = undefined;
        return;
      }
      this.step = step.value;
      this.next = 0;
    }
    this.current = this.step[this.next++]!;
    const key = this.keyOf(this.current);
    if (this.last !== undefined && compareCodePoints(this.last, key) >= 0) {
      throw new OrderError(`${this.label} out of order: '${key}' after '${this.last}'`);
    }
    this.last = key;
  }

  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

/**
 * Merges the walk of one share with its indexed pages. `idOf` is the document id the page at a path has on
 * this share's server.
 */
export async function* diffShare(
  walk: AsyncIterable<readonly WalkItem[]>,
  indexed: AsyncIterable<readonly IndexedPage[]>,
  idOf: (path: string) => string,
): AsyncGenerator<DiffItem> {
  const w = new Cursor(walk, walkItemKey, 'share walk');
  const x = new Cursor(indexed, (page: IndexedPage) => page.path, 'index');
  /** Indexed documents left alone below the current walk item (a skipped folder). */
  let kept = 0;
  try {
    await Promise.all([w.advance(), x.advance()]);
    while (w.current !== undefined || x.current !== undefined) {
      const item = w.current;
      const doc = x.current;
      if (item === undefined) {
        yield { kind: 'gone', id: doc!.id, path: doc!.path };
        await x.advance();
        continue;
      }
      const key = walkItemKey(item);
      if (doc !== undefined && (item.kind === 'denied' || item.kind === 'skipped') && doc.path.startsWith(item.prefix)) {
        // Documents below a folder that could not be listed: revoked when the indexer was denied, else kept.
        if (item.kind === 'denied') yield { kind: 'unreadable', id: doc.id, path: doc.path };
        else kept++;
        await x.advance();
        continue;
      }
      if (doc !== undefined && compareCodePoints(doc.path, key) < 0) {
        yield { kind: 'gone', id: doc.id, path: doc.path };
        await x.advance();
        continue;
      }
      // Now the index is done or at or after the walk item.
      if (item.kind === 'denied') yield { kind: 'denied', prefix: item.prefix };
      else if (item.kind === 'skipped') {
        yield { kind: 'skipped', prefix: item.prefix, reason: item.reason, kept };
      } else {
        const same = doc !== undefined && doc.path === item.path ? doc : undefined;
        let id: string | null = null;
        if (same !== undefined) {
          if (same.id === idOf(item.path)) id = same.id;
          else yield { kind: 'misplaced', id: same.id, path: same.path };
          await x.advance();
        }
        if (item.kind === 'unreadable') yield { kind: 'unreadable', id, path: item.path };
        else if (id === null) yield { kind: 'missing', path: item.path, facts: item.facts };
        else if (same!.version === item.version) yield { kind: 'unchanged', id, path: item.path, facts: item.facts };
        else yield { kind: 'changed', id, path: item.path, facts: item.facts };
      }
      kept = 0;
      await w.advance();
    }
  } finally {
    await Promise.all([w.close(), x.close()]);
  }
}

/** Documents of one `.wiki/` folder that the walk did not find, confirmed together with one listing. */
export interface GoneInFolder {
  kind: 'gone-in-folder';
  /** The `.wiki/` folder, as spelled in the first document's path. */
  wikiDir: string;
  pages: { id: string; path: string }[];
}

/** The `.wiki/` folder of an indexed page's path, compared case-insensitively; undefined for a path that is no page. */
function wikiDirKey(path: string): string | undefined {
  try {
    const location = wikiPageLocation(path);
    return location === null ? undefined : folderKey(location.folder);
  } catch {
    return undefined;
  }
}

/**
 * Collects consecutive `gone` items of the same folder into one GoneInFolder (at most `max` pages each), so that
 * a deleted folder with many pages costs one listing instead of one request per page. Other items pass through.
 */
export async function* groupGone(items: AsyncIterable<DiffItem>, max: number): AsyncGenerator<DiffItem | GoneInFolder> {
  let group: GoneInFolder | undefined;
  let groupKey: string | undefined;
  for await (const item of items) {
    const key = item.kind === 'gone' ? wikiDirKey(item.path) : undefined;
    if (group !== undefined && (key !== groupKey || group.pages.length >= max)) {
      yield group;
      group = undefined;
    }
    if (item.kind !== 'gone' || key === undefined) {
      yield item;
      continue;
    }
    group ??= { kind: 'gone-in-folder', wikiDir: item.path.slice(0, item.path.lastIndexOf('/')), pages: [] };
    groupKey = key;
    group.pages.push({ id: item.id, path: item.path });
  }
  if (group !== undefined) yield group;
}
