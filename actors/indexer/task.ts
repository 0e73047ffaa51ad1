// A worker of the indexer pool (piscina runs the default export per task): renders the pages of a batch into their
// documents and writes the batch with `_bulk`. Each worker keeps one Elasticsearch client across tasks.
import { threadId, workerData } from 'node:worker_threads';
import type { PoolWorkerData } from '../kinds.js';
import type { IndexerTasks } from './protocol.js';
import { runAsBackgroundThread } from '../../src/common/background-priority.js';
import { saveCompiledModules } from '../../src/runtime/compile-cache.js';
import { servePoolTasks } from '../../src/runtime/pool-protocol.js';
import { searchClientFromConfig } from '../../src/search/client.js';
import { writeBatch } from '../../src/indexing/indexer/write-batch.js';

const { config, secrets } = workerData as PoolWorkerData;
// Everything this pool does is indexing: requests are served by other threads first.
runAsBackgroundThread();
// This thread's modules are loaded: the pool's next thread starts from the compile cache.
saveCompiledModules();
const client = searchClientFromConfig(config.elasticsearch, secrets.elasticsearch, 'indexing');

export default servePoolTasks<IndexerTasks>({
  'ping': () => ({ threadId }),
  'write-batch': (task) => writeBatch(client, task.target, task.operations),
});
