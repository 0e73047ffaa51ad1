// A worker of the smb-reader pool (piscina runs the default export per task): lists folders and reads pages as the
// indexer account. Each worker keeps one SMB client across tasks, so connections and sessions are reused. A page's
// bytes are moved back to the reconciler's thread, not copied.
import { threadId, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { PoolWorkerData } from '../kinds.js';
import type { SmbReaderTasks } from './protocol.js';
import { runAsBackgroundThread } from '../../src/common/background-priority.js';
import { saveCompiledModules } from '../../src/runtime/compile-cache.js';
import { servePoolTasks } from '../../src/runtime/pool-protocol.js';
import type { ChangedPageOutcome, FolderListing } from '../../src/indexing/listing.js';
import { listNames, listWikiFolder, readChangedPage, readPage } from '../../src/indexing/smb-reader/wiki-reads.js';
import type { SmbShare } from '../../src/smb/index.js';
import { smbClientFromConfig } from '../../src/logon/smb-client.js';
import { IndexerShares } from '../../src/logon/indexer-shares.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';

const { config, secrets } = workerData as PoolWorkerData;
// Everything this pool does is indexing: requests are served by other threads first.
runAsBackgroundThread();
// This thread's modules are loaded: the pool's next thread starts from the compile cache.
saveCompiledModules();
const indexerShares = new IndexerShares(smbClientFromConfig(config.smb), new SmbLogons(config), config.smb.port, secrets);

/** The share as the indexer account sees it. */
function indexerShare(server: string, share: string): SmbShare {
  if (secrets.indexerPassword === undefined) throw new Error('the indexer account password is not loaded (elasticsearch.enabled is false)');
  return indexerShares.get(server, share);
}

/** `value`, with the ArrayBuffers of `buffers` moved rather than copied. */
function moving<T extends object>(value: T, buffers: ArrayBufferLike[]): T {
  if (buffers.length === 0) return value;
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return value;
    },
  }) as unknown as T;
}

/** The outcome, with the page's bytes (if it was read) moved. */
const movingPage = <O extends ChangedPageOutcome>(outcome: O): O => moving(outcome, outcome.status === 'read' ? [outcome.page.content.buffer] : []);

/** The bytes of the pages a listing read with it. */
function listedBytes(listing: FolderListing): ArrayBufferLike[] {
  const pages = listing.state === 'listed' && listing.wiki?.listing.state === 'listed' ? listing.wiki.listing.pages : [];
  return pages.flatMap((page) => (page.facts.content === undefined ? [] : [page.facts.content.buffer]));
}

export default servePoolTasks<SmbReaderTasks>({
  'ping': () => ({ threadId }),
  'list-wiki-folders': async (task) => {
    const share = indexerShare(task.server, task.share);
    const listings = await Promise.all(task.paths.map((path) => listWikiFolder(share, path, task.withContent)));
    return moving(listings, listings.flatMap(listedBytes));
  },
  'read-page': async (task) => movingPage(await readPage(indexerShare(task.page.server, task.page.share), task.page, task.known)),
  'read-changed-page': async (task) => movingPage(await readChangedPage(indexerShare(task.page.server, task.page.share), task.page, task.indexedVersion)),
  'list-names': (task) => listNames(indexerShare(task.server, task.share), task.path),
});
