// Alias migration v1 -> v2 while searches run in a loop: no search fails or sees a partial index; the move from an
// index made on standard to german while searches and suggestions run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { RebuildBusyError } from '../../../src/indexing/reconciler/rebuild-lock.js';
import { indexMappings, indexSettings, MAPPING_VERSION } from '../../../src/search/mapping.js';
import { parseSearchRequest, parseSuggestRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { buildWikiDocument, type WikiDocument } from '../../../src/wiki/document.js';
import type { SourceDocument } from '../../../src/indexing/reconciler/index-writer.js';
import { NO_DACL, asSource, indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

const PAGES = 300;
/** The shares of the proxy that rebuilds. */
const OWN = [{ server: 'dc1', share: 'schule' }];
const viewer: Viewer = { allowSids: ['S-1-5-21-5-1001', 'S-1-1-0'], denySids: ['S-1-5-21-5-1001', 'S-1-1-0'], shares: ['schule'] };

function page(i: number, server = 'dc1', share = 'schule'): WikiDocument {
  return buildWikiDocument({
    server,
    share,
    path: `Ordner-${i % 10}/.wiki/Seite-${i}.md`,
    content: `# Seite ${i}\n\n## Umzugsplanung ${i}\n\nUmzugswort und Text der Seite ${i}.`,
    size: 40,
    modified: new Date(Date.UTC(2026, 1, 1, 0, 0, i)),
    acl: NO_DACL,
  });
}

/** Pages the rebuild's source hands on between two pauses. */
const BATCH = 50;
/** Probes (probedDuring) that must have run before the source hands on its next batch, when it waits for them. */
const PROBES_PER_BATCH = 4;

/**
 * The documents as a rebuild's source, a batch of BATCH at a time with a pause before each. With `probesRun`, a batch
 * also waits until PROBES_PER_BATCH more probes have run: the rebuild then lasts for as many probes as it has batches
 * times that, however slowly a loaded host answers them (at a fixed pause, 18 probes once ran during a rebuild on CI).
 */
async function* slowly(docs: WikiDocument[], probesRun?: () => number): AsyncIterable<SourceDocument> {
  for (const [i, doc] of docs.entries()) {
    if (i % BATCH === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const batch = i / BATCH + 1;
      while (probesRun !== undefined && probesRun() < batch * PROBES_PER_BATCH) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    yield asSource(doc);
  }
}

/** Runs `probe` again and again from 200 ms before `work` until 200 ms after it; returns what `work` returns. */
async function probedDuring<T>(probe: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  let running = true;
  const loop = (async () => {
    while (running) await probe();
  })();
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return result;
  } finally {
    running = false;
    await loop;
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
    const rebuilt = await probedDuring(async () => {
      const result = await search.search(parseSearchRequest({ q: 'Umzugswort', size: 1 }), viewer);
      outcomes.push(result.degraded ? 'degraded' : `total ${result.total}`);
    }, () => manager.rebuildIndex(slowly(docs, () => outcomes.length), OWN, bulkWriterOn(es.client)));

    assert.deepEqual(rebuilt, { from: created.index, to: `${es.alias}-v${MAPPING_VERSION + 1}`, documents: PAGES, analyzer: created.analyzer });
    assert.deepEqual(await manager.aliasTargets(), [rebuilt.to]);
    assert.equal(await es.client.indices.exists({ index: created.index }), false, 'the old index is deleted');
    assert.deepEqual([...new Set(outcomes)], [`total ${PAGES}`]);
    assert.equal((await manager.ensureIndex()).status, 'ready');
  });

  it('moves an index made on standard to german while searches and suggestions keep answering', async () => {
    const alias = `${es.alias}-german`;
    const manager = new IndexManager({ client: es.client, alias, rebuildBatchSize: 100, oldIndexGraceMs: 500 });
    const search = new WikiSearch({ client: es.client, alias });
    // What a cluster without german made (and every testbed before its analysis plugin): this build's mapping on standard.
    const old = manager.indexName(MAPPING_VERSION);
    await es.client.indices.create({ index: old, settings: indexSettings(), mappings: indexMappings('standard') });
    await manager.switchAlias(null, old);
    const docs = Array.from({ length: PAGES }, (_, i) => page(i));
    await indexDocuments({ ...es, alias }, docs);
    const status = await manager.ensureIndex();
    assert.deepEqual([status.status, status.analyzer], ['migration_needed', 'standard']);

    const failures: string[] = [];
    let probes = 0;
    const rebuilt = await probedDuring(async () => {
      const found = await search.search(parseSearchRequest({ q: 'Umzugswort', size: 1 }), viewer);
      if (found.degraded || found.total !== PAGES) failures.push(`search: ${JSON.stringify(found)}`);
      const suggested = await search.suggest(parseSuggestRequest(new URLSearchParams({ q: 'Umzugspl' })), viewer);
      if (suggested.degraded || suggested.suggestions.length !== 8) failures.push(`suggest: ${JSON.stringify(suggested)}`);
      probes++;
    }, () => manager.rebuildIndex(slowly(docs, () => probes), OWN, bulkWriterOn(es.client)));
    assert.deepEqual(rebuilt, { from: old, to: manager.indexName(MAPPING_VERSION + 1), documents: PAGES, analyzer: 'german' });
    assert.deepEqual(failures, []);
    // Now stemmed: the plural finds the pages without the typo rule.
    const plural = await search.search(parseSearchRequest({ q: 'Umzugsworte', size: 1 }), viewer);
    assert.deepEqual([plural.total, plural.corrected], [PAGES, undefined]);
    assert.equal((await manager.ensureIndex()).status, 'ready');
  });

  it('keeps the documents of shares other proxies serve, and only those', async () => {
    const manager = new IndexManager({ client: es.client, alias: es.alias, oldIndexGraceMs: 0 });
    const own = Array.from({ length: 20 }, (_, i) => page(i));
    // Another site's proxy has a share of the same name on its server; a third serves verwaltung.
    const others = [...Array.from({ length: 7 }, (_, i) => page(i, 'fs-nord')), ...Array.from({ length: 5 }, (_, i) => page(i, 'dc1', 'verwaltung'))];
    await indexDocuments(es, [...own, ...others]);
    await es.client.indices.refresh({ index: es.alias });
    const count = async (server: string, share: string) =>
      (await es.client.count({ index: es.alias, query: { bool: { filter: [{ term: { server } }, { term: { share } }] } } })).count;
    const before = [await count('fs-nord', 'schule'), await count('dc1', 'verwaltung')];
    async function* ownNow(): AsyncIterable<SourceDocument> {
      // One of this proxy's pages is gone from its share: the rebuild must not bring it back from the old index.
      for (const doc of own.slice(1)) yield asSource(doc);
    }
    const rebuilt = await manager.rebuildIndex(ownNow(), OWN, bulkWriterOn(es.client));
    assert.equal(rebuilt.documents, own.length - 1);
    assert.deepEqual([await count('fs-nord', 'schule'), await count('dc1', 'verwaltung')], before);
    assert.equal(await count('dc1', 'schule'), own.length - 1);
  });

  it('two proxies rebuilding at once build one new index: the other is told who builds', async () => {
    const managers = [1, 2].map(() => new IndexManager({ client: es.client, alias: es.alias, oldIndexGraceMs: 0 }));
    const from = (await managers[0]!.aliasTargets())[0]!;
    const docs = Array.from({ length: 100 }, (_, i) => page(i));
    const results = await Promise.allSettled(managers.map((m) => m.rebuildIndex(slowly(docs), OWN, bulkWriterOn(es.client))));
    const built = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    assert.equal(built.length, 1, JSON.stringify(results));
    assert.ok(refused[0] instanceof RebuildBusyError, String(refused[0]));
    assert.match(refused[0].message, /is building .*-v\d+ \(lease until/);
    const versions = Object.keys(await es.client.indices.get({ index: `${es.alias}-v*` }));
    assert.deepEqual(versions, [built[0]!.to]);
    assert.equal(managers[0]!.generationOf(built[0]!.to), managers[0]!.generationOf(from)! + 1);
    // The lease is released: the next rebuild may run.
    await managers[1]!.rebuildIndex(slowly(docs), OWN, bulkWriterOn(es.client));
  });

  it('takes over a lease whose holder stopped renewing it', async () => {
    const manager = new IndexManager({ client: es.client, alias: es.alias, oldIndexGraceMs: 0 });
    await es.client.index({
      index: `${es.alias}-lock`, id: 'rebuild', refresh: true,
      document: { holder: 'a crashed proxy', target: 'x', expires_at: Date.now() - 1000 },
    });
    const rebuilt = await manager.rebuildIndex(slowly([page(1)]), OWN, bulkWriterOn(es.client));
    assert.deepEqual(await manager.aliasTargets(), [rebuilt.to]);
  });

  it('leaves the alias where it was when filling the new index fails', async () => {
    const manager = new IndexManager({ client: es.client, alias: es.alias });
    const before = await manager.aliasTargets();
    async function* broken(): AsyncIterable<SourceDocument> {
      yield asSource(page(1));
      yield asSource({ ...page(2), unexpected_field: 'strict mapping refuses this' } as WikiDocument);
    }
    await assert.rejects(manager.rebuildIndex(broken(), OWN, bulkWriterOn(es.client)), /rejected while filling/);
    assert.deepEqual(await manager.aliasTargets(), before);
    const leftovers = Object.keys(await es.client.indices.get({ index: `${es.alias}-v*` }));
    assert.deepEqual(leftovers, before, 'the half-filled index is removed');
  });
});
