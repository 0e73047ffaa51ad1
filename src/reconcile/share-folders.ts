/**
 * The smb-reader pool's side of the reconciler, as the indexer account: one folder per call (its sub-folders
 * and, in the same call, the pages of its `.wiki/` with version tokens), the names in a `.wiki/` folder to confirm
 * deletions, and one page read and rendered into its document in the same thread (its content never travels),
 * for a pass and for the post-write hook alike.
 * Regular files outside `.wiki/` are only seen as names in a listing, never opened.
 * Errors about one folder or file become answers (listing.ts); errors of the connection are thrown, so that
 * the pass stops instead of mistaking an outage for deleted pages.
 */
import PQueue from 'p-queue';
import { SmbError, smbErrorSummary, type SmbShare, type SmbStat } from '../smb/index.js';
import { documentSource } from '../search/bulk.js';
import { buildWikiDocument, versionToken } from '../wiki/document.js';
import { isWikiPage, WIKI_DIR } from '../wiki/layout.js';
import type { PageAddress } from '../wiki/page-change.js';
import type { ChangedPageOutcome, DocumentOutcome, FolderListing, NameListing, PageFacts, PageVersion, Unlisted, WikiDirListing } from './listing.js';

/** Security descriptors of one `.wiki/` folder read at once. */
const SECURITY_CONCURRENCY = 8;
/**
 * Larger pages are not indexed (reported as failed): Markdown pages are a few KiB, and a pool thread renders
 * several pages at once within a bounded heap (src/runtime/heap-limits.ts).
 */
export const MAX_INDEXED_PAGE_BYTES = 2 * 1024 * 1024;

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
      return { state: 'failed', error: smbErrorSummary(error) };
    default:
      // Connection, session, signing, timeouts, a vanished share, statuses not known to be about one file:
      // the pass must stop.
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
          if (sd.state === 'ok') {
            const facts = { size: entry.size, modified: entry.mtime.getTime(), securityDescriptor: sd.value };
            pages.push({ name: entry.name, version: versionToken(entry.size, entry.mtime, sd.value), facts });
          } else if (sd.state === 'denied') unreadable.push(entry.name);
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

/** What a listing would have learned of one page: its stat and security descriptor, read at once. */
async function readFacts(share: SmbShare, path: string): Promise<PageFacts> {
  const [stat, securityDescriptor] = await Promise.all([share.stat(path), share.getSecurity(path)]);
  return { size: stat.size, modified: stat.mtime.getTime(), securityDescriptor };
}

/** A page that could not be read, as an outcome. */
function unreadOutcome(problem: Unlisted): DocumentOutcome {
  if (problem.state === 'denied') return { status: 'denied' };
  if (problem.state === 'failed') return { status: 'failed', error: problem.error };
  return { status: 'gone' };
}

/**
 * The index document of one page (Markdown rendered), or why there is none. Without `known` (the post-write
 * hook) the page's stat and security descriptor are read first; with it (what the walk's listing found) only
 * the content is read. A page over MAX_INDEXED_PAGE_BYTES is never read. Should the page change in between, its
 * document has the new content under the old version token, and the next pass indexes it again.
 */
export async function loadPageDocument(share: SmbShare, page: PageAddress, known?: PageFacts): Promise<DocumentOutcome> {
  const tooLarge = (size: number): DocumentOutcome => ({ status: 'failed', error: `${size} bytes, more than the ${MAX_INDEXED_PAGE_BYTES} indexed` });
  const facts = known === undefined ? await attempt(() => readFacts(share, page.path)) : { state: 'ok' as const, value: known };
  if (facts.state !== 'ok') return unreadOutcome(facts);
  const { size, modified, securityDescriptor } = facts.value;
  if (size > MAX_INDEXED_PAGE_BYTES) return tooLarge(size);
  const content = await attempt(() => share.readFile(page.path));
  if (content.state !== 'ok') return unreadOutcome(content);
  // The file may have grown since its size was read.
  if (content.value.length > MAX_INDEXED_PAGE_BYTES) return tooLarge(content.value.length);
  try {
    const document = buildWikiDocument({ ...page, content: content.value, size, modified: new Date(modified), securityDescriptor });
    return { status: 'document', id: document.id, version: document.version, source: JSON.stringify(documentSource(document)) };
  } catch (error) {
    return { status: 'failed', error: `not rendered: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The post-write hook's load: as loadPageDocument without facts, except that a page whose stat and security
 * descriptor still give `indexedVersion` (what the hook indexed moments ago: a WebDAV save, then the change watch
 * reporting the same save) is not read or rendered again.
 */
export async function loadChangedPageDocument(share: SmbShare, page: PageAddress, indexedVersion?: string): Promise<ChangedPageOutcome> {
  if (indexedVersion === undefined) return loadPageDocument(share, page);
  const facts = await attempt(() => readFacts(share, page.path));
  if (facts.state !== 'ok') return unreadOutcome(facts);
  const { size, modified, securityDescriptor } = facts.value;
  if (versionToken(size, new Date(modified), securityDescriptor) === indexedVersion) return { status: 'unchanged' };
  return loadPageDocument(share, page, facts.value);
}
