/**
 * The change watch of one share: what other SMB clients do behind the service's back (a teacher saving a page from
 * Explorer, an ACL changed on the security tab) reaches the index in seconds instead of at the next pass.
 *
 * It holds one tree-wide CHANGE_NOTIFY on the share root as the indexer account (SmbShare.watch), for file names,
 * folder names, last writes and security. Samba reports names and writes that its clients make anywhere below a
 * tree watch, but an ACL change only among the watched folder's own entries (it learns of those from the kernel,
 * whose notification covers one folder); so each `.wiki/` folder the index knows (and each that appears) gets a
 * watch of its own for security. On Windows servers the tree watch alone would do; the folder watches then only
 * repeat it.
 *
 * A watch holds its folder open, and a folder another client deletes is removed only when its last handle closes:
 * until then its parent is not empty (DIRECTORY_NOT_EMPTY: a delete-pending folder is still an entry of its parent).
 * No open option avoids that, and the server tells the holder only once the deletion is under way (the watch's
 * request ends with STATUS_DELETE_PENDING, MS-FSA 2.1.5.15.3; SmbShare.watch also when its request came after the
 * deletion, which Samba leaves unanswered), too late for a client that deletes the parent next.
 * So the watches let go at the first sign that a tree may be going: a page removed, a `.wiki/` folder or a folder with
 * pages removed, or a watch ended with STATUS_DELETE_PENDING closes the watch of every `.wiki/` folder below the
 * parent of that folder (releaseAround): a client deletes a folder's pages before the folder, so it reaches those
 * next. Each is set up again after the moment of quiet if its folder still holds pages, not earlier by a pass that ends
 * meanwhile (the index may still list the folder). This needs the reconciler's thread at normal priority
 * (actors/reconciler/main.ts). What remains is a race with a client that deletes a folder's
 * last page, its `.wiki/` and the folder within a few milliseconds: such a client must try the parent again a moment
 * later, as for any client that has a folder open (Explorer, a virus scanner), and the service's own WebDAV DELETE
 * does (src/webdav/tree-ops.ts); test/integration/wiki/watch-delete.test.ts measures how often. An ACL-only change of a
 * page in a released folder in that moment waits for the next pass.
 * What it hears becomes the work the one indexing pipeline already knows:
 * - a page (a `*.md` file directly in a `.wiki/` folder) created, written, its ACL changed, renamed to, deleted or
 *   renamed away: the same page-written / page-deleted / page-moved changes a WebDAV save sends to the post-write
 *   hook, collected for a moment first (a save is several events: create, write, rename), so that each page is loaded
 *   once per save;
 * - a folder that holds pages below it (as the index knows them) changed (its ACL: the pages below inherit from it),
 *   renamed or deleted, or a `.wiki/` folder appearing by a rename: a pass of the share, which re-reads the pages'
 *   ACLs and paths and writes only what differs;
 * - an answer that overflowed (STATUS_NOTIFY_ENUM_DIR), changes the hook could not take, or a watch lost and set up
 *   again (the server restarted, the connection dropped): a pass of the share, for whatever happened meanwhile.
 * Everything else (files outside `.wiki/`, folders without pages) is dropped after parsing and a set lookup.
 *
 * Part of the reconciler actor rather than an actor of its own: what it produces are calls on the reconciler's own
 * hook and job queue, and its cost is one outstanding request per share; a thread of its own would add a protocol
 * for every change and a second copy of the share list, and a crash there would still need the reconciler to repair
 * with a pass. Its failures stay inside it: a watch that ends is set up again with back-off.
 */
import type { PageChange } from '../wiki/page-change.js';
import { FileAction, FileNotifyChange, SmbError, type SmbShare, type WatchChange } from '../smb/index.js';
import { describeError, pathId, type SearchLog } from '../search/log.js';
import { folderKey } from '../wiki/document-id.js';
import { folderAncestry, isWikiDir, SharePathError, wikiDirOf, wikiPageLocation } from '../wiki/layout.js';

/** What the tree watch on the share root asks the server to report. */
export const WATCH_FILTER = FileNotifyChange.FILE_NAME | FileNotifyChange.DIR_NAME | FileNotifyChange.LAST_WRITE | FileNotifyChange.SECURITY;
/** What the watch of one `.wiki/` folder asks for: the ACL changes of its pages (names and writes come from the tree watch). */
const WIKI_DIR_FILTER = FileNotifyChange.SECURITY;

export interface ShareWatchOptions {
  server: string;
  share: string;
  /** The share as the indexer account sees it. */
  smb: Pick<SmbShare, 'watch' | 'readdir'>;
  /** The post-write hook: false when it could not take the change (then a pass is asked for). */
  pageChanged(change: PageChange): boolean;
  /** Queues a pass of this share (joining one that is queued and not yet started). */
  requestPass(reason: string): void;
  /** The folders (as written) that hold indexed pages. */
  indexedFolders(): Promise<string[]>;
  /** A save is several events: changes of a page wait this long for quiet... */
  quietMs?: number;
  /** ...but never longer than this after the first of them. */
  maxDelayMs?: number;
  /** Waits before setting up a lost watch again, the last one repeated. */
  retryDelaysMs?: readonly number[];
  log: SearchLog;
}

export interface ShareWatchStats {
  /** The server holds the watch now. */
  armed: boolean;
  /** Changes the server reported (every kind, also those that did not concern the index). */
  events: number;
  /** Answers that could not carry every change (a pass followed). */
  overflows: number;
  /** Times the watch was set up again after it was lost (a pass followed each). */
  rearms: number;
  /** Why the watch ended last, if it did. */
  lastError: string | null;
  /** `.wiki/` folders with a watch of their own now. */
  wikiFolders: number;
}

type PageOp = 'written' | 'deleted';

const WRITTEN_ACTIONS: ReadonlySet<number> = new Set([
  FileAction.ADDED,
  FileAction.MODIFIED,
  FileAction.RENAMED_NEW_NAME,
  FileAction.ADDED_STREAM,
  FileAction.REMOVED_STREAM,
  FileAction.MODIFIED_STREAM,
]);

function pageOp(action: number): PageOp | null {
  if (WRITTEN_ACTIONS.has(action)) return 'written';
  if (action === FileAction.REMOVED || action === FileAction.RENAMED_OLD_NAME) return 'deleted';
  return null;
}

/** A page's canonical path, or null for anything else (and for a name no share can hold). */
function pagePath(path: string): string | null {
  try {
    return wikiPageLocation(path)?.path ?? null;
  } catch (error) {
    if (error instanceof SharePathError) return null;
    throw error;
  }
}

export class ShareWatch {
  private readonly options: ShareWatchOptions;
  private readonly controller = new AbortController();
  private readonly counts: Omit<ShareWatchStats, 'wikiFolders'> = { armed: false, events: 0, overflows: 0, rearms: 0, lastError: null };
  /** The watches of single `.wiki/` folders, by folderKey of the folder, with the folder as written. */
  private readonly wikiDirWatches = new Map<string, { folder: string; controller: AbortController }>();
  /** Folders (as written, by folderKey) whose `.wiki/` watch a removal nearby closed, with the count of removals since. */
  private readonly released = new Map<string, { folder: string; removals: number }>();
  /** The last operation on each page since the last flush, by canonical path. */
  private readonly pending = new Map<string, PageOp>();
  /** Pages renamed within one answer: new path -> old path. */
  private readonly moves = new Map<string, string>();
  private passReason: string | null = null;
  private folders = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(options: ShareWatchOptions) {
    this.options = options;
  }

  get share(): string {
    return this.options.share;
  }

  start(): void {
    this.running ??= this.run();
  }

  stats(): ShareWatchStats {
    return { ...this.counts, wikiFolders: this.wikiDirWatches.size };
  }

  /**
   * After a pass of this share: the folders with pages may have changed. A folder whose watch a removal nearby
   * closed is left to rewatchReleased: the index may still list it (the page-deleted not yet applied, or the answer
   * read before the removal), and a watch opened again now would hold its `.wiki/` just as the client deletes it.
   */
  async reloadFolders(): Promise<void> {
    try {
      const folders = await this.options.indexedFolders();
      this.folders = new Set(folders.flatMap((folder) => folderAncestry(folderKey(folder))));
      if (!this.counts.armed) return;
      for (const folder of folders) if (!this.released.has(folderKey(folder))) this.watchWikiDir(folder);
    } catch (error) {
      // Until the index answers, a change of an unknown folder is missed by the watch, not by the next pass.
      this.options.log.warn({ share: this.share, ...describeError(error) }, 'change watch: folders with pages not loaded');
    }
  }

  /** Cancels the watches and hands over what is still collected. */
  async stop(): Promise<void> {
    this.controller.abort();
    this.stopWikiDirWatches();
    await this.running;
    this.flush();
  }

  private async run(): Promise<void> {
    const { signal } = this.controller;
    const delays = this.options.retryDelaysMs ?? [1000, 2000, 5000, 10_000, 30_000];
    let failures = 0;
    let lost = false;
    while (!signal.aborted) {
      try {
        await this.options.smb.watch('', {
          filter: WATCH_FILTER,
          signal,
          onArmed: () => {
            this.counts.armed = true;
            failures = 0;
            void this.reloadFolders();
            if (!lost) return;
            this.counts.rearms++;
            this.options.log.info({ share: this.share }, 'change watch set up again; a pass catches up on what changed meanwhile');
            this.askForPass('the watch was lost');
          },
          onChanges: (changes) => this.onChanges(changes),
        });
      } catch (error) {
        this.counts.lastError = describeError(error).error;
        this.options.log.warn({ share: this.share, ...describeError(error) }, 'change watch lost');
      }
      this.counts.armed = false;
      this.stopWikiDirWatches();
      if (signal.aborted) return;
      lost = true;
      await abortableDelay(delays[Math.min(failures++, delays.length - 1)]!, signal);
    }
  }

  /**
   * Watches the `.wiki/` folder of `folder` (a folder as written) for ACL changes of its pages, unless it
   * is watched already. It ends when the folder goes away or the tree watch is lost (which sets it up again).
   */
  private watchWikiDir(folder: string): void {
    const key = folderKey(folder);
    if (this.wikiDirWatches.has(key) || this.controller.signal.aborted) return;
    const controller = new AbortController();
    this.wikiDirWatches.set(key, { folder, controller });
    this.options.smb
      .watch(wikiDirOf(folder), { filter: WIKI_DIR_FILTER, tree: false, signal: controller.signal, onChanges: (changes) => this.onChanges(changes) })
      .catch((error: unknown) => {
        // Another client is deleting this `.wiki/` folder (MS-FSA 2.1.5.15.3): the folders around it may go next.
        if (error instanceof SmbError && error.code === 'DELETE_PENDING') this.releaseAround(folder);
        else this.options.log.info({ share: this.share, folder: pathId(this.share, folder), ...describeError(error) }, 'change watch of a .wiki folder ended');
      })
      .finally(() => {
        if (this.wikiDirWatches.get(key)?.controller === controller) this.wikiDirWatches.delete(key);
      });
  }

  /**
   * Something of `folder` went (a page, its `.wiki/` folder, the folder itself): the tree it is in may be being
   * deleted, and the watches must not hold that up. Closes the watch of every `.wiki/` folder below the parent of
   * `folder` (`folder` itself at the share root: one removal never lets go of the whole share), so that the watches of
   * the folders a deleting client reaches next are closed before it gets there.
   */
  private releaseAround(folder: string): void {
    const key = folderKey(folder);
    const parent = key.slice(0, Math.max(0, key.lastIndexOf('/')));
    const inScope = parent === '' ? (k: string) => k === key : (k: string) => k === parent || k.startsWith(`${parent}/`);
    for (const [watched, { folder: written, controller }] of this.wikiDirWatches) {
      if (!inScope(watched)) continue;
      controller.abort();
      this.wikiDirWatches.delete(watched);
      this.released.set(watched, { folder: written, removals: 0 });
    }
    for (const [watched, entry] of this.released) if (inScope(watched)) entry.removals++;
    if (!this.released.has(key)) this.released.set(key, { folder, removals: 1 });
    this.schedule(); // the flush after the moment of quiet watches again what still holds pages
  }

  /** Watches the released `.wiki/` folders again that still hold pages, unless a removal nearby came meanwhile. */
  private rewatchReleased(): void {
    if (this.controller.signal.aborted) return;
    for (const [key, entry] of this.released) {
      const { folder, removals } = entry;
      const current = () => this.released.get(key) === entry && entry.removals === removals;
      this.options.smb.readdir(wikiDirOf(folder)).then(
        (entries) => {
          if (!current()) return; // a later removal checks again
          this.released.delete(key);
          const holdsPages = entries.some((e) => !e.isDirectory && pagePath(e.path) !== null);
          if (holdsPages && this.counts.armed) this.watchWikiDir(folder);
        },
        () => {
          // Gone (or unreadable): nothing to watch; a page written there again sets the watch up.
          if (current()) this.released.delete(key);
        },
      );
    }
  }

  private stopWikiDirWatches(): void {
    for (const { controller } of this.wikiDirWatches.values()) controller.abort();
    this.wikiDirWatches.clear();
  }

  private onChanges(changes: WatchChange[] | 'overflow'): void {
    if (changes === 'overflow') {
      this.counts.overflows++;
      this.askForPass('more changed than the server could report');
      return;
    }
    this.counts.events += changes.length;
    let renamedFrom: string | null = null;
    for (const { action, path } of changes) {
      const page = pagePath(path);
      if (page !== null) {
        const op = pageOp(action);
        if (op === null) continue;
        this.pending.set(page, op);
        // A rename is reported as the old name followed by the new one.
        if (action === FileAction.RENAMED_NEW_NAME && renamedFrom !== null) this.moves.set(page, renamedFrom);
        renamedFrom = action === FileAction.RENAMED_OLD_NAME ? page : null;
        const { folder } = wikiPageLocation(page)!;
        if (op === 'written') this.pageFolderSeen(folder);
        else this.releaseAround(folder);
        this.schedule();
        continue;
      }
      renamedFrom = null;
      if (action === FileAction.ADDED) {
        if (isWikiDirPath(path)) this.watchWikiDir(parentOf(path));
      } else if (this.holdsPages(path)) {
        if (action === FileAction.REMOVED) this.releaseAround(isWikiDirPath(path) ? parentOf(path) : path);
        this.askForPass('a folder with pages was removed or renamed'); // a reason without the path: it is logged
      }
    }
  }

  /** A page was written in `folder`: it and its ancestors hold pages now, and its `.wiki/` is watched. */
  private pageFolderSeen(folder: string): void {
    for (const key of folderAncestry(folderKey(folder))) this.folders.add(key);
    if (this.counts.armed) this.watchWikiDir(folder);
  }

  /** A `.wiki/` folder, or a folder with pages below it. ADDED ones are empty: their pages come as events. */
  private holdsPages(path: string): boolean {
    return isWikiDirPath(path) || this.folders.has(folderKey(path));
  }

  private askForPass(reason: string): void {
    this.passReason ??= reason;
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.quietMs ?? 200);
    this.maxTimer ??= setTimeout(() => this.flush(), this.options.maxDelayMs ?? 1000);
  }

  /** Hands the collected changes to the hook and asks for the pass, if any. */
  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = this.maxTimer = undefined;
    const address = (path: string) => ({ server: this.options.server, share: this.share, path });
    let refused = 0;
    const send = (change: PageChange): void => {
      if (!this.options.pageChanged(change)) refused++;
    };
    for (const [to, from] of this.moves) {
      if (this.pending.get(to) !== 'written' || this.pending.get(from) !== 'deleted') continue;
      send({ type: 'page-moved', from: address(from), to: address(to) });
      this.pending.delete(from);
      this.pending.delete(to);
    }
    for (const [path, op] of this.pending) send({ type: op === 'written' ? 'page-written' : 'page-deleted', page: address(path) });
    this.pending.clear();
    this.moves.clear();
    this.rewatchReleased();
    if (refused > 0) this.passReason ??= `${refused} page changes not taken by the index queue`;
    if (this.passReason !== null) {
      this.options.requestPass(this.passReason);
      this.passReason = null;
    }
  }
}

/** The folder `path` is in ('' for the share root). */
function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** Whether `path` names a `.wiki/` folder (false for a name no share can hold). */
function isWikiDirPath(path: string): boolean {
  try {
    return isWikiDir(path);
  } catch (error) {
    if (error instanceof SharePathError) return false;
    throw error;
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
