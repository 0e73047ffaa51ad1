// A worker of the smb-reader pool (piscina runs the default export per task): lists folders and reads pages as the
// indexer account. Each worker keeps one SMB client across tasks, so connections and sessions are reused. A page's
// bytes are moved back to the reconciler's thread, not copied.
import { threadId, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { PoolWorkerData } from '../kinds.js';
import type { SmbReaderResult, SmbReaderTask } from './protocol.js';
import { runAsBackgroundThread } from '../../src/common/background-priority.js';
import { saveCompiledModules } from '../../src/runtime/compile-cache.js';
import type { ChangedPageOutcome } from '../../src/indexing/listing.js';
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

/** The result, with the page's bytes (if it was read) moved rather than copied. */
function movingPage(result: Extract<SmbReaderResult, { type: 'page' | 'changed-page' }>): SmbReaderResult {
  const outcome: ChangedPageOutcome = result.outcome;
  if (outcome.status !== 'read') return result;
  return move({
    get [transferableSymbol]() {
      return [outcome.page.content.buffer];
    },
    get [valueSymbol]() {
      return result;
    },
  }) as unknown as SmbReaderResult;
}

export default async function run(task: SmbReaderTask): Promise<SmbReaderResult> {
  switch (task.type) {
    case 'ping':
      return { type: 'pong', threadId };
    case 'list-wiki-folder':
      return { type: 'wiki-folder', listing: await listWikiFolder(indexerShare(task.server, task.share), task.path) };
    case 'read-page':
      return movingPage({ type: 'page', outcome: await readPage(indexerShare(task.page.server, task.page.share), task.page, task.known) });
    case 'read-changed-page':
      return movingPage({ type: 'changed-page', outcome: await readChangedPage(indexerShare(task.page.server, task.page.share), task.page, task.indexedVersion) });
    case 'list-names':
      return { type: 'names', listing: await listNames(indexerShare(task.server, task.share), task.path) };
  }
}
