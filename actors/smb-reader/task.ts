// A worker of the smb-reader pool (piscina runs the default export per task).
// Each worker keeps one SMB client for the indexer account across tasks, so
// connections and sessions are reused.
import { threadId, workerData } from 'node:worker_threads';
import type { PoolWorkerData, SmbReaderResult, SmbReaderTask } from '../../src/messages/pools.js';
import { runAsBackgroundThread } from '../../src/reconcile/background-priority.js';
import { saveCompiledModules } from '../../src/runtime/compile-cache.js';
import { listNames, listWikiFolder, loadChangedPageDocument, loadPageDocument } from '../../src/reconcile/share-folders.js';
import { SmbClient, SmbPool, type SmbShare } from '../../src/smb/index.js';
import { IndexerShares } from '../../src/logon/indexer-shares.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';

const { config, secrets } = workerData as PoolWorkerData;
// Everything this pool does is indexing: requests are served by other threads first.
runAsBackgroundThread();
// This thread's modules are loaded: the pool's next thread starts from the compile cache.
saveCompiledModules();
const client = new SmbClient(new SmbPool({
  requestTimeoutMs: config.smb.request_timeout,
  idleTimeoutMs: config.smb.idle_timeout,
  minDialect: config.smb.min_dialect,
  requireEncryption: config.smb.require_encryption,
}));
const logons = new SmbLogons(config);
const indexerShares = new IndexerShares(client, logons, config.smb.port, secrets);

/** The share as the indexer account sees it. */
function indexerShare(server: string, share: string): SmbShare {
  if (secrets.indexerPassword === undefined) throw new Error('the indexer account password is not loaded (elasticsearch.enabled is false)');
  return indexerShares.get(server, share);
}

export default async function run(task: SmbReaderTask): Promise<SmbReaderResult> {
  switch (task.type) {
    case 'ping':
      return { type: 'pong', threadId };
    case 'list-wiki-folder':
      return { type: 'wiki-folder', listing: await listWikiFolder(indexerShare(task.server, task.share), task.path) };
    case 'load-page-document':
      return { type: 'page-document', outcome: await loadPageDocument(indexerShare(task.page.server, task.page.share), task.page, task.known) };
    case 'load-changed-page':
      return { type: 'changed-page', outcome: await loadChangedPageDocument(indexerShare(task.page.server, task.page.share), task.page, task.indexedVersion) };
    case 'list-names':
      return { type: 'names', listing: await listNames(indexerShare(task.server, task.share), task.path) };
  }
}
