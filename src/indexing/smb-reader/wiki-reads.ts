/**
 * The smb-reader pool's side of the reconciler, as the indexer account: one folder per call (its sub-folders
 * and, in the same call, the pages of its `.wiki/` with version tokens), the names in a `.wiki/` folder to confirm
 * deletions, and one page's bytes, stat and security descriptor, for a pass and for the post-write hook alike
 * (the indexer pool renders them).
 * Regular files outside `.wiki/` are only seen as names in a listing, never opened.
 * Errors about one folder or file become answers (../listing.ts); errors of the connection are thrown, so that
 * the pass stops instead of mistaking an outage for deleted pages.
 */
import PQueue from 'p-queue';
import { SmbError, smbErrorSummary, type SecurityDescriptor, type SmbShare, type SmbStat } from '../../smb/index.js';
import { deriveAcl } from '../../wiki/acl.js';
import { versionToken } from '../../wiki/version-token.js';
import { isWikiPage, WIKI_DIR } from '../../wiki/layout.js';
import type { PageAddress } from '../../wiki/page-change.js';
import { readPageOf, type ChangedPageOutcome, type ListedPageFacts, type PageOutcome, type FolderListing, type NameListing, type PageFacts, type PageVersion, type Unlisted, type WikiDirListing } from '../listing.js';

/** Pages of one `.wiki/` folder read at once in a forced reindex (each open reads a page's descriptor and bytes). */
const SECURITY_CONCURRENCY = 8;
/**
 * A pass reads only the pages' descriptors: this many in one round trip (a compound message of an open, a query and
 * a close per page), and this many round trips at once. One message for eight opens costs the service less CPU
 * than eight messages (signing, framing, a promise per message): measured with a throwaway script on the testbed,
 * 88–109 µs of client CPU per descriptor against 155–176 µs. Sixteen take most `.wiki/` folders in one message
 * (the testbed's seeded ones hold ten pages: 8 + 2 before): bench/index/job-cost.js, 10,000 pages, 6 rounds,
 * the service's CPU per page of a pass 297 µs with 8, 270 µs with 16 (medians; lower in 5 of the 6 pairs).
 */
const SECURITY_BATCH = 16;
const SECURITY_BATCHES_AT_ONCE = 2;
/**
 * Larger pages are not indexed (reported as failed): Markdown pages are a few KiB, and the pool threads read and
 * render several pages at once within a bounded heap (src/runtime/heap-limits.ts).
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
    case 'LOCK_CONFLICT':
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

/** The facts a listing keeps of a page: the stat of its listing entry, and the read ACL of its security descriptor. */
function factsOf(entry: SmbStat, sd: SecurityDescriptor): PageFacts {
  return { size: entry.size, modified: entry.mtime.getTime(), acl: deriveAcl(sd) };
}

/**
 * What the listing of a forced reindex learns of one page besides its stat: its security descriptor and its bytes,
 * of one open (ListedPageFacts). Should that open fail, or the page be too large to index, the security descriptor
 * alone is read: a page the account may not read, or that another program holds, is then read on its own, and fails
 * there as ever.
 */
async function listedFacts(share: SmbShare, entry: SmbStat): Promise<Attempt<ListedPageFacts>> {
  if (entry.size <= MAX_INDEXED_PAGE_BYTES) {
    const both = await attempt(() => share.readWithSecurity(entry.path));
    if (both.state === 'ok') {
      const { securityDescriptor, content } = both.value;
      return { state: 'ok', value: { ...factsOf(entry, securityDescriptor), ...(content === undefined ? {} : { content: ownBytes(content) }) } };
    }
  }
  const sd = await attempt(() => share.getSecurity(entry.path));
  return sd.state === 'ok' ? { state: 'ok', value: factsOf(entry, sd.value) } : sd;
}

/**
 * The descriptors of `entries` (pages of one folder), of one round trip: each page's facts, or what the server said
 * about that page alone; any other error is thrown, as getSecurity's would be.
 */
async function listedSecurities(share: SmbShare, entries: readonly SmbStat[]): Promise<Attempt<ListedPageFacts>[]> {
  const descriptors = await share.getSecurityOfEach(entries.map((entry) => entry.path));
  return descriptors.map((sd, i): Attempt<ListedPageFacts> => {
    if (sd instanceof SmbError) {
      const problem = itemProblem(sd);
      if (problem === undefined) throw sd;
      return problem;
    }
    return { state: 'ok', value: factsOf(entries[i]!, sd) };
  });
}

async function listWikiDir(share: SmbShare, path: string, withContent: boolean): Promise<WikiDirListing> {
  const entries = await attempt(() => share.readdir(path));
  if (entries.state !== 'ok') return entries;
  const pages: PageVersion[] = [];
  const unreadable: string[] = [];
  const record = (entry: SmbStat, facts: Attempt<ListedPageFacts>): void => {
    if (facts.state === 'ok') {
      pages.push({ name: entry.name, version: versionToken(entry.size, entry.mtime, facts.value.acl), facts: facts.value });
    } else if (facts.state === 'denied') unreadable.push(entry.name);
    // missing: deleted since the listing; failed: left out now, the next pass tries again.
  };
  const pageEntries = entries.value.filter((entry) => !entry.isDirectory && isWikiPage(entry.path));
  if (withContent) {
    const queue = new PQueue({ concurrency: SECURITY_CONCURRENCY });
    await Promise.all(pageEntries.map((entry) => queue.add(async () => record(entry, await listedFacts(share, entry)))));
  } else {
    const queue = new PQueue({ concurrency: SECURITY_BATCHES_AT_ONCE });
    const batches = Array.from({ length: Math.ceil(pageEntries.length / SECURITY_BATCH) }, (_, i) => pageEntries.slice(i * SECURITY_BATCH, (i + 1) * SECURITY_BATCH));
    await Promise.all(batches.map((batch) => queue.add(async () => {
      const facts = await listedSecurities(share, batch);
      batch.forEach((entry, i) => record(entry, facts[i]!));
    })));
  }
  return { state: 'listed', pages, unreadable };
}

/**
 * Sub-folders of `path` (share-relative, '' = root) and the pages of its `.wiki/`, if it has one; with `withContent`
 * (a forced reindex, which writes every page) each page's bytes as well, read in the open of its security descriptor.
 */
export async function listWikiFolder(share: SmbShare, path: string, withContent = false): Promise<FolderListing> {
  const entries = await attempt(() => share.readdir(path));
  if (entries.state !== 'ok') return entries;
  const wikiDir = entries.value.find(isWikiDirEntry);
  return {
    state: 'listed',
    folders: entries.value.filter((entry) => entry.isDirectory && !isWikiDirEntry(entry)).map((entry) => entry.name),
    wiki: wikiDir === undefined ? null : { name: wikiDir.name, listing: await listWikiDir(share, wikiDir.path, withContent) },
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
  return factsOf(stat, securityDescriptor);
}

/** A page that could not be read, as an outcome. */
function unreadOutcome(problem: Unlisted): PageOutcome {
  if (problem.state === 'denied') return { status: 'denied' };
  if (problem.state === 'failed') return { status: 'failed', error: problem.error };
  return { status: 'gone' };
}

/** The bytes in an ArrayBuffer of their own: a Buffer may be a slice of a shared one, which cannot be moved. */
function ownBytes(content: Buffer): Uint8Array {
  return content.byteOffset === 0 && content.byteLength === content.buffer.byteLength ? new Uint8Array(content.buffer) : new Uint8Array(content);
}

/**
 * One page read for its index document, or why there is none. Without `known` (the post-write hook) the page's
 * stat and security descriptor are read first; with it (what the walk's listing found) only the content is read (a
 * page whose listing read its content too never comes here: the reconciler takes it as listed, listedPage).
 * A page over MAX_INDEXED_PAGE_BYTES is never read. Should the page change in between, its document has the new
 * content under the old version token, and the next pass indexes it again.
 */
export async function readPage(share: SmbShare, page: PageAddress, known?: PageFacts): Promise<PageOutcome> {
  const tooLarge = (size: number): PageOutcome => ({ status: 'failed', error: `${size} bytes, more than the ${MAX_INDEXED_PAGE_BYTES} indexed` });
  const facts = known === undefined ? await attempt(() => readFacts(share, page.path)) : { state: 'ok' as const, value: known };
  if (facts.state !== 'ok') return unreadOutcome(facts);
  if (facts.value.size > MAX_INDEXED_PAGE_BYTES) return tooLarge(facts.value.size);
  const content = await attempt(() => share.readFile(page.path));
  if (content.state !== 'ok') return unreadOutcome(content);
  // The file may have grown since its size was read.
  if (content.value.length > MAX_INDEXED_PAGE_BYTES) return tooLarge(content.value.length);
  return { status: 'read', page: readPageOf(page, facts.value, ownBytes(content.value)) };
}

/**
 * The post-write hook's read: as readPage without facts, except that a page whose stat and security descriptor
 * still give `indexedVersion` (what the hook indexed moments ago: a WebDAV save, then the change watch reporting
 * the same save) is not read again.
 */
export async function readChangedPage(share: SmbShare, page: PageAddress, indexedVersion?: string): Promise<ChangedPageOutcome> {
  if (indexedVersion === undefined) return readPage(share, page);
  const facts = await attempt(() => readFacts(share, page.path));
  if (facts.state !== 'ok') return unreadOutcome(facts);
  const { size, modified, acl } = facts.value;
  if (versionToken(size, new Date(modified), acl) === indexedVersion) return { status: 'unchanged' };
  return readPage(share, page, facts.value);
}
