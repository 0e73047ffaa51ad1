// Elasticsearch unreachable (a client pointed at 127.0.0.1:1, where nothing listens): reads answer empty and
// degraded instead of throwing, the bulk writer drops and counts, index management reports the failure.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { errors } from '@elastic/elasticsearch';
import { BulkIndexer } from '../../../src/search/bulk.js';
import { createSearchClient } from '../../../src/search/client.js';
import { IndexManager } from '../../../src/search/index-manager.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import type { WikiDocument } from '../../../src/wiki/document.js';

describe('Elasticsearch unreachable', () => {
  const client = createSearchClient('http://127.0.0.1:1', { requestTimeoutMs: 2000 });
  const warnings: object[] = [];
  const log = { info: () => undefined, warn: (details: object) => warnings.push(details) };
  const search = new WikiSearch({ client, log });
  const viewer: Viewer = { allowSids: ['S-1-1-0'], denySids: ['S-1-1-0'], shares: ['schule'] };
  after(() => client.close());

  it('search, listPages and listRoots answer empty and degraded, and log why', async () => {
    assert.deepEqual(await search.search(parseSearchRequest({ q: 'Lehrplan' }), viewer), { total: 0, hits: [], degraded: true });
    assert.deepEqual(await search.listPages('schule', '', viewer), { total: 0, pages: [], degraded: true });
    assert.deepEqual(await search.listRoots(viewer), { roots: [], degraded: true });
    assert.equal(warnings.length, 3);
    assert.match(JSON.stringify(warnings[0]), /ECONNREFUSED/);
  });

  it('a viewer without SIDs is answered without asking Elasticsearch at all', async () => {
    warnings.length = 0;
    assert.deepEqual(await search.search(parseSearchRequest({ q: 'x' }), { allowSids: [], denySids: [], shares: ['schule'] }), { total: 0, hits: [] });
    assert.equal(warnings.length, 0);
  });

  it('the bulk writer drops and counts instead of buffering', async () => {
    const writer = new BulkIndexer({ client, maxOperations: 2, flushIntervalMs: 10 });
    writer.upsert({ id: 'a' } as WikiDocument);
    writer.upsert({ id: 'b' } as WikiDocument);
    writer.delete('c');
    await writer.close();
    assert.equal(writer.pendingCount, 0);
    assert.deepEqual(writer.stats, { upserted: 0, deleted: 0, failed: 0, dropped: 3, batches: 2 });
  });

  it('index management fails with the connection error for the caller to retry', async () => {
    await assert.rejects(new IndexManager({ client }).ensureIndex(), errors.ConnectionError);
  });
});
