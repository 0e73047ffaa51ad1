// A worker of the indexer pool (piscina runs the default export per task).
import { threadId } from 'node:worker_threads';
import type { IndexerResult, IndexerTask } from '../../src/messages/pools.js';
import { buildWikiDocument } from '../../src/wiki/document.js';

export default async function run(task: IndexerTask): Promise<IndexerResult> {
  switch (task.type) {
    case 'ping':
      return { type: 'pong', threadId };
    case 'render-page':
      return { type: 'document', document: buildWikiDocument(task.source) };
  }
}
