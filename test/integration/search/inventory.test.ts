// The reconciler's view of the index: every page of a share with its version, across search_after pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSearchClient } from '../../../src/search/client.js';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { indexedPages, type IndexedPage } from '../../../src/indexing/reconciler/inventory.js';
import { buildWikiDocument, type WikiDocument } from '../../../src/wiki/document.js';
import { NO_DACL, indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

function page(share: string, i: number, server = 'dc1'): WikiDocument {
  return buildWikiDocument({
    server,
    share,
    path: `Klasse ${i % 4}/.wiki/Seite ${i}.md`,
    content: `# Seite ${i}`,
    size: i,
    modified: new Date(Date.UTC(2026, 2, 1, 0, 0, i)),
    acl: NO_DACL,
  });
}

/** The pages, their responses' steps joined; no step is empty. */
async function collect(pages: AsyncIterable<IndexedPage[]>): Promise<IndexedPage[]> {
  const all: IndexedPage[] = [];
  for await (const step of pages) {
    assert.ok(step.length > 0, 'an empty step');
    all.push(...step);
  }
  return all;
}

describe('indexedPages', () => {
  let es: ScratchIndex;
  const schule = Array.from({ length: 23 }, (_, i) => page('schule', i));
  const verwaltung = Array.from({ length: 5 }, (_, i) => page('verwaltung', i));
  // Another site's proxy on the same index, whose server also has a share `schule`.
  const otherSite = Array.from({ length: 4 }, (_, i) => page('schule', i, 'fs-nord'));
  before(async () => {
    es = await scratchIndex('inventory');
    await new IndexManager({ client: es.client, alias: es.alias }).ensureIndex();
    await indexDocuments(es, [...schule, ...verwaltung, ...otherSite]);
  });
  after(() => es.drop());

  const expected = (docs: WikiDocument[]): IndexedPage[] =>
    docs.map(({ id, path, version }) => ({ id, path, version })).sort((a, b) => (a.path < b.path ? -1 : 1));

  it('lists every page of one share of one server with id and version, over several requests', async () => {
    const of = (share: string, server = 'dc1') => ({ server, share });
    assert.deepEqual(await collect(indexedPages(es.client, of('schule'), { alias: es.alias, pageSize: 7 })), expected(schule));
    assert.deepEqual(await collect(indexedPages(es.client, of('verwaltung'), { alias: es.alias, pageSize: 5 })), expected(verwaltung));
    assert.deepEqual(await collect(indexedPages(es.client, of('schule', 'fs-nord'), { alias: es.alias })), expected(otherSite));
    assert.deepEqual(await collect(indexedPages(es.client, of('privat'), { alias: es.alias })), []);
  });

  it('throws instead of reporting an empty index when Elasticsearch is unreachable', async () => {
    const down = createSearchClient({ nodes: ['http://127.0.0.1:1'] }, { maxRetries: 0 });
    await assert.rejects(collect(indexedPages(down, { server: 'dc1', share: 'schule' })), /ECONNREFUSED/);
    await down.close();
  });
});
