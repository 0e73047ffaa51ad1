/**
 * The pages of a share in the order the index side is read in (path, code point order), one folder listing at a
 * time, so that the two can be merged without holding either in memory.
 *
 * Depth-first, with each folder's children sorted by name plus '/' (for folders): then the order of the yielded
 * paths is the order of the full path strings ('a-b/x' before 'a/x', because '-' < '/').
 * Listings are requested ahead of the walk (`lookahead` per folder level), so that the server is kept busy while
 * the consumer works; memory stays bounded by the tree's depth times the lookahead, not by the number of pages.
 * They are requested half a lookahead at a time, all in one turn of the event loop, so that a `list` that gathers the
 * calls of a turn (the reconciler's, actors/reconciler/main.ts) sends them to its thread as one task.
 * The items come a step at a time, an array each: the pages of one `.wiki/` folder, or one folder not listed. A pass
 * takes every page of a share through here, and a step of an async generator per page costs more than the page's
 * comparison (see inventory.ts).
 */
import { compareCodePoints } from '../../common/code-point-order.js';
import type { FolderListing, ListedPageFacts, Unlisted, WikiDirListing } from '../listing.js';

export type WalkItem =
  | { kind: 'page'; path: string; version: string; facts: ListedPageFacts }
  /** A page the indexer account may not read: it must not be in the index. */
  | { kind: 'unreadable'; path: string }
  /** A folder (`prefix` ends with '/') the indexer account may not list: nothing below it may be in the index. */
  | { kind: 'denied'; prefix: string }
  /** A folder that could not be listed for another reason: what the index holds below it is left alone. */
  | { kind: 'skipped'; prefix: string; reason: string };

/** The share root itself could not be listed; nothing can be said about the share. */
export class ShareUnlistedError extends Error {
  override readonly name = 'ShareUnlistedError';
}

interface OrderedWalkOptions {
  /** Folder listings requested ahead, per level of the tree. Default 8. */
  lookahead?: number;
  /** Folders nested deeper than this are skipped (a guard against link loops). Default 64. */
  maxDepth?: number;
  /**
   * The folder to walk below ('' for the share root, the default). Unlike the share root, such a folder may be
   * gone or locked away: that is an answer (nothing below it, or nothing below it may be indexed), not an error.
   */
  from?: string;
}

type Child =
  | { key: string; kind: 'folder'; path: string; listing?: Promise<FolderListing> }
  | { key: string; kind: 'wiki'; path: string; listing: WikiDirListing };

interface Frame {
  depth: number;
  /** Walked children are cleared, so that their listings can be collected. */
  children: (Child | undefined)[];
  next: number;
  /** The children before this one have been requested. */
  requested: number;
}

function joinPath(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

function byKey(a: { key: string }, b: { key: string }): number {
  return compareCodePoints(a.key, b.key);
}

/** What an unlisted folder means for the index below it, or nothing when it is simply gone. */
function unlistedItem(prefix: string, unlisted: Unlisted): WalkItem | null {
  switch (unlisted.state) {
    case 'missing':
      return null;
    case 'denied':
      return { kind: 'denied', prefix };
    case 'failed':
      return { kind: 'skipped', prefix, reason: unlisted.error };
  }
}

/**
 * Every page of the share below `from` (the root), sorted by path in code point order, in steps (see above). `list`
 * lists one folder.
 */
export async function* walkWikiPages(
  list: (path: string) => Promise<FolderListing>,
  options: OrderedWalkOptions = {},
): AsyncGenerator<WalkItem[]> {
  const lookahead = Math.max(1, options.lookahead ?? 8);
  const maxDepth = options.maxDepth ?? 64;

  const request = (child: Child | undefined): void => {
    if (child?.kind !== 'folder' || child.listing !== undefined) return;
    const listing = list(child.path);
    // Failures surface when the walk reaches the folder; until then the rejection must not count as unhandled.
    listing.catch(() => undefined);
    child.listing = listing;
  };
  /** Once no more than half a lookahead of the frame's next children is requested, requests up to a whole one. */
  const requestAhead = (frame: Frame): void => {
    if (frame.requested - frame.next > lookahead / 2) return;
    const until = Math.min(frame.next + lookahead, frame.children.length);
    for (; frame.requested < until; frame.requested++) request(frame.children[frame.requested]);
  };
  const frameOf = (path: string, depth: number, listing: Extract<FolderListing, { state: 'listed' }>): Frame => {
    const children: Child[] = listing.folders.map((name) => ({ key: `${name}/`, kind: 'folder', path: joinPath(path, name) }));
    if (listing.wiki !== null) {
      const { name, listing: pages } = listing.wiki;
      children.push({ key: `${name}/`, kind: 'wiki', path: joinPath(path, name), listing: pages });
    }
    children.sort(byKey);
    const frame: Frame = { depth, children, next: 0, requested: 0 };
    requestAhead(frame);
    return frame;
  };

  const from = options.from ?? '';
  const root = await list(from);
  if (root.state !== 'listed' && from === '') {
    throw new ShareUnlistedError(root.state === 'failed' ? root.error : `the share root is ${root.state}`);
  }
  if (root.state !== 'listed') {
    const item = unlistedItem(`${from}/`, root);
    if (item !== null) yield [item];
    return;
  }
  const stack: Frame[] = [frameOf(from, 0, root)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const child = frame.children[frame.next];
    if (child === undefined) {
      stack.pop();
      continue;
    }
    frame.children[frame.next++] = undefined;
    requestAhead(frame);
    const prefix = `${child.path}/`;

    if (child.kind === 'wiki') {
      if (child.listing.state !== 'listed') {
        const item = unlistedItem(prefix, child.listing);
        if (item !== null) yield [item];
        continue;
      }
      const pages: WalkItem[] = [
        ...child.listing.pages.map((page): WalkItem => ({ kind: 'page', path: prefix + page.name, version: page.version, facts: page.facts })),
        ...child.listing.unreadable.map((name): WalkItem => ({ kind: 'unreadable', path: prefix + name })),
      ];
      pages.sort((a, b) => compareCodePoints(walkItemKey(a), walkItemKey(b)));
      if (pages.length > 0) yield pages;
      continue;
    }

    if (frame.depth + 1 > maxDepth) {
      yield [{ kind: 'skipped', prefix, reason: `nested deeper than ${maxDepth} folders` }];
      continue;
    }
    request(child);
    const listing = await child.listing!;
    if (listing.state === 'listed') stack.push(frameOf(child.path, frame.depth + 1, listing));
    else {
      const item = unlistedItem(prefix, listing);
      if (item !== null) yield [item];
    }
  }
}

/** The sort key of a walk item in the merge: a page's path, or the folder prefix everything below it starts with. */
export function walkItemKey(item: WalkItem): string {
  return item.kind === 'page' || item.kind === 'unreadable' ? item.path : item.prefix;
}
