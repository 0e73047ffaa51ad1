/**
 * The change watch of one share: what other SMB clients do behind the service's back (a teacher saving a page from
 * Explorer, renaming a class folder) reaches the index in seconds instead of at the next pass.
 *
 * It holds one tree-wide CHANGE_NOTIFY on the share root as the indexer account (SmbShare.watch), and nothing else:
 * no handle of the service sits inside the trees users change. A handle inside them would be in their way, because
 * a folder another client deletes is removed only when its last handle closes (until then its parent is not empty,
 * and the client's recursive delete fails), and the file server's open-file limits are not ours to spend.
 *
 * What a root watch hears depends on the server (measured on the testbed's Samba; test/integration/smb/watch.test.ts):
 * Samba reports below a tree watch only what smbd itself does for its clients: names (FILE_NAME, DIR_NAME) and
 * sizes (SIZE: a write that changes a file's length, an overwrite that truncates first). It reports neither an
 * in-place write that keeps the length (LAST_WRITE) nor an ACL change (SECURITY) below the watched folder: it learns
 * of those only from the kernel, for the watched folder's own entries. Windows servers report both below a tree
 * watch, so they are asked for all the same. What Samba does not report waits for the next pass (README, live index).
 *
 * What it hears becomes the work the one indexing pipeline already knows, in proportion to what changed:
 * - a page (a `*.md` file directly in a `.wiki/` folder) created, written, renamed to, deleted or renamed away: the
 *   same page-written / page-deleted / page-moved changes a WebDAV save sends to the post-write hook, collected for a
 *   moment first (a save is several events: create, write, rename), so that each page is loaded once per save;
 * - a folder that holds pages below it (as the index knows them) renamed, or changed (its ACL, on servers that report
 *   it), or a `.wiki/` folder renamed: a pass of that folder's subtree (and of the new name's), which reads and
 *   writes only the pages below it;
 * - a folder deleted: nothing more. SMB deletes only empty folders, so each of its pages was reported as deleted
 *   before it;
 * - an answer that overflowed (STATUS_NOTIFY_ENUM_DIR: it does not say where) or a watch lost and set up again (the
 *   server restarted, the connection dropped): a pass of the share, which reads only the pages whose version differs;
 *   page changes the hook could not take: a pass of their folders.
 * Everything else (files outside `.wiki/`, folders without pages) is dropped after parsing and a set lookup. It logs
 * share names and counts, never a path.
 *
 * Part of the reconciler actor rather than an actor of its own: what it produces are calls on the reconciler's own
 * hook and job queue, and its cost is one outstanding request per share; a thread of its own would add a protocol
 * for every change and a second copy of the share list, and a crash there would still need the reconciler to repair
 * with a pass. Its failures stay inside it: a watch that ends is set up again at once, then with back-off.
 */
import type { PageChange } from '../../wiki/page-change.js';
import { FileAction, FileNotifyChange, type SmbShare, type WatchChange } from '../../smb/index.js';
import { describeSearchError } from '../../search/search-failure.js';
import type { Logger } from '../../common/logger.js';
import { folderKey } from '../../wiki/document-id.js';
import { folderAncestry, isWikiDir, SharePathError, wikiPageLocation } from '../../wiki/layout.js';
import { isWithin } from './jobs.js';

/** What the tree watch on the share root asks the server to report (which of these Samba reports: see above). */
const WATCH_FILTER =
  FileNotifyChange.FILE_NAME | FileNotifyChange.DIR_NAME | FileNotifyChange.SIZE | FileNotifyChange.LAST_WRITE | FileNotifyChange.SECURITY;

/** Why the watch asks for a pass: said in the log instead of the paths it saw. */
type PassReason = 'overflow' | 'watch set up again' | 'changes not taken by the index queue' | 'folder renamed or changed';

interface ShareWatchOptions {
  server: string;
  share: string;
  /** The share as the indexer account sees it. */
  smb: Pick<SmbShare, 'watch'>;
  /** The post-write hook: false when it could not take the change (then a pass is asked for). */
  pageChanged(change: PageChange): boolean;
  /** Queues a pass of the subtrees of this share's `folders` (`['']`: the whole share), joining one that covers them. */
  requestPass(folders: string[], reason: PassReason): void;
  /** The folders (as written) below `folder` ('' for the whole share) that hold indexed pages. */
  indexedFolders(folder: string): Promise<string[]>;
  /** A save is several events: changes of a page wait this long for quiet... */
  quietMs?: number;
  /** ...but never longer than this after the first of them. */
  maxDelayMs?: number;
  /** Waits before setting up a lost watch again, the last one repeated; the first is 0: at once. */
  retryDelaysMs?: readonly number[];
  log: Logger;
}

export interface ShareWatchStats {
  /** The server holds the watch now. */
  armed: boolean;
  /** Handles the watch holds open on the file server: 1 (the share root) while armed, whatever the number of folders. */
  handles: number;
  /** Changes the server reported (every kind, also those that did not concern the index). */
  events: number;
  /** Answers that could not carry every change (a pass of the share followed). */
  overflows: number;
  /** Times the watch was set up again after it was lost (a pass of the share followed each). */
  rearms: number;
  /** Passes of folder subtrees asked for (renamed or changed folders, changes the hook could not take). */
  folderPasses: number;
  /** Why the watch ended last, if it did. */
  lastError: string | null;
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
  private readonly counts: Omit<ShareWatchStats, 'handles'> = { armed: false, events: 0, overflows: 0, rearms: 0, folderPasses: 0, lastError: null };
  /** The last operation on each page since the last flush, by canonical path. */
  private readonly pending = new Map<string, PageOp>();
  /** Pages renamed within one answer: new path -> old path. */
  private readonly moves = new Map<string, string>();
  /** Folders (as written) whose subtree a pass must see, by folderKey. */
  private readonly folderPasses = new Map<string, string>();
  private sharePass: PassReason | null = null;
  /** folderKey of every folder that holds indexed pages, and of each folder above one. */
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
    return { ...this.counts, handles: this.counts.armed ? 1 : 0 };
  }

  /** After a pass of this share or of `roots` in it: the folders with pages below them may have changed. */
  async reloadFolders(roots: readonly string[] = ['']): Promise<void> {
    try {
      const loaded = await Promise.all(roots.map((root) => this.options.indexedFolders(root)));
      const kept = [...this.folders].filter((key) => !roots.some((root) => isWithin(key, root)));
      this.folders = new Set([...kept, ...loaded.flat().flatMap((folder) => folderAncestry(folderKey(folder)))]);
    } catch (error) {
      // Until the index answers, a rename of an unknown folder is missed by the watch, not by the next pass.
      this.options.log.warn({ share: this.share, ...describeSearchError(error) }, 'change watch: folders with pages not loaded');
    }
  }

  /** Cancels the watch and hands over what is still collected. */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.running;
    this.flush();
  }

  private async run(): Promise<void> {
    const { signal } = this.controller;
    const delays = this.options.retryDelaysMs ?? [0, 1000, 2000, 5000, 10_000, 30_000];
    let failures = 0;
    let lost = false;
    while (!signal.aborted) {
      try {
        await this.options.smb.watch({
          filter: WATCH_FILTER,
          signal,
          onArmed: () => {
            this.counts.armed = true;
            failures = 0;
            void this.reloadFolders();
            if (!lost) return;
            this.counts.rearms++;
            this.options.log.info({ share: this.share }, 'change watch set up again; a pass catches up on what changed meanwhile');
            this.askForSharePass('watch set up again');
          },
          onChanges: (changes) => this.onChanges(changes),
        });
      } catch (error) {
        this.counts.lastError = describeSearchError(error).error;
        this.options.log.warn({ share: this.share, ...describeSearchError(error) }, 'change watch lost');
      }
      this.counts.armed = false;
      if (signal.aborted) return;
      lost = true;
      await abortableDelay(delays[Math.min(failures++, delays.length - 1)]!, signal);
    }
  }

  private onChanges(changes: WatchChange[] | 'overflow'): void {
    if (changes === 'overflow') {
      this.counts.overflows++;
      this.askForSharePass('overflow');
      return;
    }
    this.counts.events += changes.length;
    let renamedPage: string | null = null;
    let renamedFolder = false;
    for (const { action, path } of changes) {
      const page = pagePath(path);
      if (page !== null) {
        renamedFolder = false;
        const op = pageOp(action);
        if (op === null) continue;
        this.pending.set(page, op);
        // A rename is reported as the old name followed by the new one.
        if (action === FileAction.RENAMED_NEW_NAME && renamedPage !== null) this.moves.set(page, renamedPage);
        renamedPage = action === FileAction.RENAMED_OLD_NAME ? page : null;
        if (op === 'written') this.holdsPagesNow(wikiPageLocation(page)!.folder);
        this.schedule();
        continue;
      }
      renamedPage = null;
      // A `.wiki/` folder stands for the folder it belongs to.
      const wikiDir = isWikiDirPath(path);
      const folder = wikiDir ? parentOf(path) : path;
      const holdsPages = wikiDir || this.folders.has(folderKey(path));
      switch (action) {
        case FileAction.RENAMED_OLD_NAME:
          // Its pages are gone from here; the new name, next in the answer, is where they went.
          renamedFolder = holdsPages;
          if (holdsPages) this.passOf(folder);
          break;
        case FileAction.RENAMED_NEW_NAME:
          if (renamedFolder || wikiDir) {
            this.holdsPagesNow(folder);
            this.passOf(folder);
          }
          renamedFolder = false;
          break;
        case FileAction.REMOVED:
          // Deleted only once empty: its pages came as page deletions.
          if (holdsPages) for (const key of this.folders) if (isWithin(key, folder)) this.folders.delete(key);
          break;
        case FileAction.ADDED:
          break; // a new folder is empty: its pages come as events
        default:
          // Its ACL (servers that report it below a tree watch): the pages below inherit from it.
          if (holdsPages) this.passOf(folder);
      }
    }
  }

  /** A page was written in `folder`, or pages moved there: it and its ancestors hold pages now. */
  private holdsPagesNow(folder: string): void {
    for (const key of folderAncestry(folderKey(folder))) this.folders.add(key);
  }

  private passOf(folder: string): void {
    this.folderPasses.set(folderKey(folder), folder);
    this.schedule();
  }

  private askForSharePass(reason: PassReason): void {
    this.sharePass ??= reason;
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.quietMs ?? 200);
    this.maxTimer ??= setTimeout(() => this.flush(), this.options.maxDelayMs ?? 1000);
  }

  /** Hands the collected changes to the hook and asks for the passes, if any. */
  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = this.maxTimer = undefined;
    const address = (path: string) => ({ server: this.options.server, share: this.share, path });
    let refused = false;
    /** A change the hook cannot take now: a pass of the folders it concerns does it instead. */
    const send = (change: PageChange, ...pages: string[]): void => {
      if (this.options.pageChanged(change)) return;
      refused = true;
      for (const page of pages) {
        const { folder } = wikiPageLocation(page)!;
        this.folderPasses.set(folderKey(folder), folder);
      }
    };
    for (const [to, from] of this.moves) {
      if (this.pending.get(to) !== 'written' || this.pending.get(from) !== 'deleted') continue;
      send({ type: 'page-moved', from: address(from), to: address(to) }, from, to);
      this.pending.delete(from);
      this.pending.delete(to);
    }
    for (const [path, op] of this.pending) send({ type: op === 'written' ? 'page-written' : 'page-deleted', page: address(path) }, path);
    this.pending.clear();
    this.moves.clear();
    const folders = [...this.folderPasses.values()];
    this.folderPasses.clear();
    if (this.sharePass !== null) {
      this.options.requestPass([''], this.sharePass);
      this.sharePass = null;
      return;
    }
    // The outermost folders only: a pass of a folder covers those below it.
    const outermost = folders.filter((folder) => !folders.some((other) => other !== folder && isWithin(folder, other)));
    const reason: PassReason = refused ? 'changes not taken by the index queue' : 'folder renamed or changed';
    if (outermost.length > 0) this.options.requestPass(outermost, reason);
    this.counts.folderPasses += outermost.length;
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
