/**
 * The smb-reader pool's side of the reconciler's walk, as the indexer account: one folder per call (its
 * sub-folders and, in the same call, the pages of its `.wiki/` with version tokens), one page for indexing, and
 * the names in a `.wiki/` folder to confirm deletions.
 * Regular files outside `.wiki/` are only seen as names in a listing, never opened.
 * Errors about one folder or file become answers (listing.ts); errors of the connection are thrown, so that
 * the pass stops instead of mistaking an outage for deleted pages.
 */
import PQueue from 'p-queue';
import { SmbError, type SmbShare, type SmbStat } from '../smb/index.js';
import { readWikiPage } from '../wiki/share-reader.js';
import { versionToken } from '../wiki/document.js';
import { isWikiPage, WIKI_DIR } from '../wiki/layout.js';
import type { FolderListing, NameListing, PageOutcome, PageVersion, Unlisted, WikiDirListing } from './listing.js';

/** Security descriptors of one `.wiki/` folder read at once. */
const SECURITY_CONCURRENCY = 8;

/** What the server said about one folder or file, if it concerns only that item; undefined for anything else. */
function itemProblem(error: unknown): Unlisted | undefined {
  if (!(error instanceof SmbError)) return undefined;
  switch (error.code) {
    case 'NOT_FOUND':
    case 'DELETE_PENDING':
      return { state: 'missing' };
    case 'ACCESS_DENIED':
      return { state: 'denied' };
    case 'SHARING_VIOLATION':
    case 'NOT_A_DIRECTORY':
    case 'IS_A_DIRECTORY':
    case 'INVALID_PARAMETER':
    case 'NOT_SUPPORTED':
    case 'END_OF_FILE':
    case 'STATUS_ERROR':
      return { state: 'failed', error: error.message };
    default:
      // Connection, session, signing, timeouts, a vanished share: the pass must stop.
      return undefined;
  }
}

type Attempt<T> = { state: 'ok'; value: T } | Unlisted;

async function attempt<T>(work: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { state: 'ok', value: await work() };
  } catch (error) {
    const problem = itemProblem(error);
    if (problem === undefined) throw error;
    return problem;
  }
}

function isWikiDirEntry(entry: SmbStat): boolean {
  return entry.isDirectory && entry.name.toLowerCase() === WIKI_DIR;
}

async function listWikiDir(share: SmbShare, path: string): Promise<WikiDirListing> {
  const entries = await attempt(() => share.readdir(path));
  if (entries.state !== 'ok') return entries;
  const pages: PageVersion[] = [];
  const unreadable: string[] = [];
  const queue = new PQueue({ concurrency: SECURITY_CONCURRENCY });
  await Promise.all(
    entries.value
      .filter((entry) => !entry.isDirectory && isWikiPage(entry.path))
      .map((entry) =>
        queue.add(async () => {
          const sd = await attempt(() => share.getSecurity(entry.path));
          if (sd.state === 'ok') pages.push({ name: entry.name, version: versionToken(entry.size, entry.mtime, sd.value) });
          else if (sd.state === 'denied') unreadable.push(entry.name);
          // missing: deleted since the listing; failed: left out now, the next pass tries again.
        }),
      ),
  );
  return { state: 'listed', pages, unreadable };
}

/** Sub-folders of `path` (share-relative, '' = root) and the pages of its `.wiki/`, if it has one. */
export async function listWikiFolder(share: SmbShare, path: string): Promise<FolderListing> {
  const entries = await attempt(() => share.readdir(path));
  if (entries.state !== 'ok') return entries;
  const wikiDir = entries.value.find(isWikiDirEntry);
  return {
    state: 'listed',
    folders: entries.value.filter((entry) => entry.isDirectory && !isWikiDirEntry(entry)).map((entry) => entry.name),
    wiki: wikiDir === undefined ? null : { name: wikiDir.name, listing: await listWikiDir(share, wikiDir.path) },
  };
}

/** The names of the entries of `path`: one request, to confirm that pages are gone. */
export async function listNames(share: SmbShare, path: string): Promise<NameListing> {
  const entries = await attempt(() => share.readdir(path));
  return entries.state === 'ok' ? { state: 'listed', names: entries.value.map((entry) => entry.name) } : entries;
}

/** Content, stat and security descriptor of one page, or why there is none. */
export async function readPageForIndex(share: SmbShare, path: string): Promise<PageOutcome> {
  const read = await attempt(() => readWikiPage(share, path));
  if (read.state === 'ok') return read.value === null ? { status: 'gone' } : { status: 'read', page: read.value };
  if (read.state === 'missing') return { status: 'gone' };
  if (read.state === 'denied') return { status: 'denied' };
  return { status: 'failed', error: read.error };
}
