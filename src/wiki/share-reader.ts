/**
 * What the index needs from a share, read over SMB with the indexer account: one page (content, stat, security
 * descriptor) and the list of all pages with their version tokens. The smb-reader pool runs these.
 */
import PQueue from 'p-queue';
import type { PageRead, WikiListing } from '../messages/pools.js';
import { SmbError, type SmbShare } from '../smb/index.js';
import { versionToken } from './document.js';
import { isWikiPage } from './layout.js';

/** Security descriptors read at once while listing. */
const LIST_CONCURRENCY = 8;

/** The file vanished between being named and being read. */
function isGone(error: unknown): boolean {
  return error instanceof SmbError && (error.code === 'NOT_FOUND' || error.code === 'DELETE_PENDING');
}

/** The indexer account may not read it: the page cannot be indexed, so nobody finds it. */
function isUnreadable(error: unknown): boolean {
  return error instanceof SmbError && error.code === 'ACCESS_DENIED';
}

/** One page; null when it does not exist. Other failures (access denied, connection) throw. */
export async function readWikiPage(share: SmbShare, path: string): Promise<PageRead | null> {
  try {
    const [stat, content, securityDescriptor] = await Promise.all([
      share.stat(path),
      share.readFile(path),
      share.getSecurity(path),
    ]);
    return { content, size: stat.size, modified: stat.mtime, securityDescriptor };
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
}

/**
 * Walks the whole share for `.wiki/*.md` files and computes each one's version token (size, modification time,
 * read ACL). A folder that cannot be listed fails the whole listing: a partial list must not look like deletions.
 */
export async function listWikiPages(share: SmbShare): Promise<WikiListing> {
  const files = [];
  for await (const entry of share.walk('', { include: (e) => !e.isDirectory && isWikiPage(e.path) })) files.push(entry);
  const listing: WikiListing = { pages: [], unreadable: [] };
  const queue = new PQueue({ concurrency: LIST_CONCURRENCY });
  await Promise.all(
    files.map((file) =>
      queue.add(async () => {
        try {
          const sd = await share.getSecurity(file.path);
          listing.pages.push({ path: file.path, version: versionToken(file.size, file.mtime, sd) });
        } catch (error) {
          if (isUnreadable(error)) listing.unreadable.push(file.path);
          else if (!isGone(error)) throw error;
        }
      }),
    ),
  );
  listing.pages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return listing;
}
