// Elasticsearch's back-pressure answered by backing off: pages rendered and written as the indexer pool does
// (src/indexing/indexer/write-batch.ts), through the pass's bulk writer with many batches in flight, into a real
// node whose write queue holds one request (`npm run testbed -- small-queue up`; started here when it is not up,
// and then stopped). The node answers 429 (its rejected count rises, the back-offs are counted), and every page
// still ends up in the index, none refused and no batch failed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { PushBackTotals } from '../../../actors/reconciler/metrics.js';
import { silentLog } from '../../../src/common/logger.js';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import type { ReadPage } from '../../../src/indexing/listing.js';
import type { BulkWriter } from '../../../src/indexing/operations.js';
import { IndexWriter } from '../../../src/indexing/reconciler/index-writer.js';
import { createSearchClient } from '../../../src/search/client.js';
import { indexMappings, indexSettings } from '../../../src/search/mapping.js';
import { documentId } from '../../../src/wiki/document-id.js';
import { ensureSmallQueueNodeRunning, smallQueueNodeUrl, stopSmallQueueNode } from '../../testbed/elasticsearch-small-queue.js';
import { NO_DACL } from '../search/scratch-index.js';

const PAGES = 600;
/** Small batches, many at once: far more requests than one write thread and a queue of one take. */
const BATCH = 25;
const IN_FLIGHT = 12;

function page(n: number): ReadPage {
  const path = `.wiki/seite-${n}.md`;
  const content = new TextEncoder().encode(`# Seite ${n}\n\n${'Elternabend und Klassenfahrt im Frühjahr. '.repeat(40)}\n`);
  return {
    page: { server: 'fs1', share: 'schule', path },
    id: documentId('fs1', 'schule', path),
    version: `v${n}`,
    facts: { size: content.length, modified: Date.UTC(2026, 0, 1), acl: NO_DACL },
    content,
  };
}

/** Write requests the node has refused since it started. */
async function rejectedWrites(client: Client): Promise<number> {
  const pools = await client.cat.threadPool({ thread_pool_patterns: 'write', h: 'rejected', format: 'json' });
  return pools.reduce((sum, pool) => sum + Number(pool.rejected ?? 0), 0);
}

describe('Elasticsearch pushing back (a write queue of one)', () => {
  let client: Client;
  let started = false;
  const index = `test-back-pressure-${randomBytes(4).toString('hex')}`;

  before(async () => {
    ({ started } = await ensureSmallQueueNodeRunning());
    client = createSearchClient({ nodes: [smallQueueNodeUrl] }, { maxRetries: 0 });
    await client.indices.create({ index, settings: indexSettings(), mappings: indexMappings('standard') });
  });
  after(async () => {
    try {
      await client?.indices.delete({ index, ignore_unavailable: true });
      await client?.close();
    } finally {
      // Only a node this test started; one someone brought up stays.
      if (started) await stopSmallQueueNode();
    }
  });

  it('is answered by backing off: every page is indexed, none refused, and the node did push back', async () => {
    const rejectedBefore = await rejectedWrites(client);
    const pushBack = new PushBackTotals();
    const pool = bulkWriterOn(client);
    // As the reconciler adds up the indexer pool's answers.
    const bulk: BulkWriter = {
      write: async (target, operations) => {
        const result = await pool.write(target, operations);
        pushBack.add(result);
        return result;
      },
    };
    const writer = new IndexWriter({ bulk, target: { index }, maxOperations: BATCH, maxInFlight: IN_FLIGHT, log: silentLog });
    for (let n = 0; n < PAGES; n++) await writer.index(page(n));
    await writer.flush();
    await client.indices.refresh({ index });

    assert.deepEqual(writer.counts, { upserted: PAGES, deleted: 0, rejected: 0, notRendered: 0 });
    assert.equal((await client.count({ index })).count, PAGES);
    const rejected = (await rejectedWrites(client)) - rejectedBefore;
    assert.ok(rejected > 0, 'the node refused no write: nothing was pushed back');
    assert.ok(pushBack.backOffs > 0 && pushBack.resent > 0, `back-offs ${pushBack.backOffs}, operations sent again ${pushBack.resent}`);
  });
});
