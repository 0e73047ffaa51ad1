// Elasticsearch unreachable (a client pointed at 127.0.0.1:1, where nothing listens): reads answer empty and
// degraded instead of throwing, the post-write hook's writes are dropped and counted, index management reports
// the failure.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { errors } from '@elastic/elasticsearch';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { PageChanges } from '../../../src/indexing/reconciler/page-changes.js';
import { createSearchClient } from '../../../src/search/client.js';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { NO_DACL } from './scratch-index.js';

describe('Elasticsearch unreachable', () => {
  const client = createSearchClient({ nodes: ['http://127.0.0.1:1'] }, { requestTimeoutMs: 2000 });
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

  it('the post-write hook drops and counts writes instead of buffering', async () => {
    const hook = new PageChanges({
      bulk: bulkWriterOn(client),
      alias: 'wiki-md',
      readPage: async (page) => ({
        status: 'read',
        page: { page, id: page.path, version: 'v1', facts: { size: 3, modified: 0, acl: NO_DACL }, content: new TextEncoder().encode('# a') },
      }),
      writable: () => true,
      gatherMs: 10,
      log,
    });
    const page = (path: string) => ({ server: 'dc1', share: 'schule', path });
    hook.pageChanged({ type: 'page-written', page: page('.wiki/a.md') });
    hook.pageChanged({ type: 'page-written', page: page('.wiki/b.md') });
    hook.pageChanged({ type: 'page-deleted', page: page('.wiki/c.md') });
    await hook.close(5_000);
    assert.deepEqual(hook.stats().bulk, { upserted: 0, deleted: 0, failed: 0, dropped: 3 });
  });

  it('index management fails with the connection error for the caller to retry', async () => {
    await assert.rejects(new IndexManager({ client }).ensureIndex(), errors.ConnectionError);
  });
});
