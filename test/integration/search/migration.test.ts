// Alias migration v1 -> v2 while searches run in a loop: no search fails or sees a partial index.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndexManager } from '../../../src/search/index-manager.js';
import { MAPPING_VERSION } from '../../../src/search/mapping.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { buildWikiDocument, type WikiDocument } from '../../../src/wiki/document.js';
import type { SourceDocument } from '../../../src/search/index-writer.js';
import { asSource, indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

const PAGES = 300;
const viewer: Viewer = { allowSids: ['S-1-5-21-5-1001', 'S-1-1-0'], denySids: ['S-1-5-21-5-1001', 'S-1-1-0'], shares: ['schule'] };

function page(i: number): WikiDocument {
  return buildWikiDocument({
    server: 'dc1',
    share: 'schule',
    path: `Ordner-${i % 10}/.wiki/Seite-${i}.md`,
    content: `# Seite ${i}\n\nUmzugswort und Text der Seite ${i}.`,
    size: 40,
    modified: new Date(Date.UTC(2026, 1, 1, 0, 0, i)),
    securityDescriptor: { revision: 1, control: 0x8000, owner: null, group: null, dacl: null, sacl: null },
  });
}

async function* slowly(docs: WikiDocument[]): AsyncIterable<SourceDocument> {
  for (const [i, doc] of docs.entries()) {
    if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    yield asSource(doc);
  }
}

describe('alias migration', () => {
  let es: ScratchIndex;
  before(async () => {
    es = await scratchIndex('migration');
  });
  after(() => es.drop());

  it('rebuilds into the next version and moves the alias while searches keep answering', async () => {
    const manager = new IndexManager({ client: es.client, alias: es.alias, rebuildBatchSize: 100, oldIndexGraceMs: 500 });
    const search = new WikiSearch({ client: es.client, alias: es.alias });
    const created = await manager.ensureIndex();
    assert.equal(created.index, `${es.alias}-v${MAPPING_VERSION}`);
    const docs = Array.from({ length: PAGES }, (_, i) => page(i));
    assert.equal((await indexDocuments(es, docs)).upserted, PAGES);

    const outcomes: string[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const result = await search.search(parseSearchRequest({ q: 'Umzugswort', size: 1 }), viewer);
        outcomes.push(result.degraded ? 'degraded' : `total ${result.total}`);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rebuilt = await manager.rebuildIndex(slowly(docs));
    await new Promise((resolve) => setTimeout(resolve, 200));
    running = false;
    await loop;

    assert.deepEqual(rebuilt, { from: created.index, to: `${es.alias}-v${MAPPING_VERSION + 1}`, documents: PAGES, analyzer: created.analyzer });
    assert.deepEqual(await manager.aliasTargets(), [rebuilt.to]);
    assert.equal(await es.client.indices.exists({ index: created.index }), false, 'the old index is deleted');
    assert.ok(outcomes.length > 20, `only ${outcomes.length} searches ran`);
    assert.deepEqual([...new Set(outcomes)], [`total ${PAGES}`]);
    assert.equal((await manager.ensureIndex()).status, 'ready');
  });

  it('leaves the alias where it was when filling the new index fails', async () => {
    const manager = new IndexManager({ client: es.client, alias: es.alias });
    const before = await manager.aliasTargets();
    async function* broken(): AsyncIterable<SourceDocument> {
      yield asSource(page(1));
      yield asSource({ ...page(2), unexpected_field: 'strict mapping refuses this' } as WikiDocument);
    }
    await assert.rejects(manager.rebuildIndex(broken()), /rejected while filling/);
    assert.deepEqual(await manager.aliasTargets(), before);
    const leftovers = Object.keys(await es.client.indices.get({ index: `${es.alias}-v*` }));
    assert.deepEqual(leftovers, before, 'the half-filled index is removed');
  });
});
