// Index creation, analyzer detection and version checks against the testbed's Elasticsearch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errors } from '@elastic/elasticsearch';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { IndexManager, IndexStateError, isUnknownAnalyzer } from '../../../src/indexing/reconciler/index-manager.js';
import { indexMappings, indexSettings, MAPPING_VERSION } from '../../../src/search/mapping.js';
import { scratchIndex, type ScratchIndex } from './scratch-index.js';

describe('IndexManager', () => {
  let es: ScratchIndex;
  let manager: IndexManager;
  before(async () => {
    es = await scratchIndex('manager');
    manager = new IndexManager({ client: es.client, alias: es.alias });
  });
  after(() => es.drop());

  it('creates the versioned index and the alias on the production analyzer german, then finds it ready', async () => {
    const created = await manager.ensureIndex();
    // The testbed has german (its analysis plugin stands in for the analysis-common module, test/testbed/README.md).
    assert.deepEqual(created, { status: 'created', index: `${es.alias}-v${MAPPING_VERSION}`, mappingVersion: MAPPING_VERSION, analyzer: 'german' });
    assert.deepEqual(await manager.aliasTargets(), [created.index]);
    const mapping = await es.client.indices.getMapping({ index: es.alias });
    const body = mapping[created.index]!.mappings.properties!['body'] as { analyzer: string };
    assert.equal(body.analyzer, 'german');
    const { tokens } = await es.client.indices.analyze({ index: es.alias, field: 'body', text: 'Die Häuser der Schueler an der Strasse' });
    assert.deepEqual(tokens?.map((token) => token.token), ['haus', 'schul', 'strass']);
    assert.deepEqual(await manager.ensureIndex(), { ...created, status: 'ready' });
  });

  it('recognises the refusal of an analyzer the cluster lacks, in a mapping and in _analyze', async () => {
    const missing = 'no_such_analyzer';
    const index = `${es.alias}-unknown`;
    const refusal = (request: Promise<unknown>) => request.then(() => assert.fail('accepted'), (error: unknown) => error);
    const mapped = await refusal(es.client.indices.create({ index, mappings: { properties: { t: { type: 'text', analyzer: missing } } } }));
    assert.ok(isUnknownAnalyzer(mapped, missing), String(mapped));
    assert.equal(isUnknownAnalyzer(mapped, 'german'), false);
    const analyzed = await refusal(es.client.indices.analyze({ index: es.alias, analyzer: missing, text: 'x' }));
    assert.ok(isUnknownAnalyzer(analyzed, missing), String(analyzed));
    assert.equal(isUnknownAnalyzer(new errors.ConnectionError('down'), missing), false);
  });

  it('rebuilds an index made on standard once the cluster has german', async () => {
    const upgrading = new IndexManager({ client: es.client, alias: `${es.alias}-upgrade`, oldIndexGraceMs: 0 });
    const index = upgrading.indexName(MAPPING_VERSION);
    await es.client.indices.create({ index, settings: indexSettings(), mappings: indexMappings('standard') });
    await upgrading.switchAlias(null, index);
    assert.deepEqual(await upgrading.ensureIndex(), {
      status: 'migration_needed', index, mappingVersion: MAPPING_VERSION, requiredVersion: MAPPING_VERSION, analyzer: 'standard',
    });
    const rebuilt = await upgrading.rebuildIndex((async function* () {})(), [], bulkWriterOn(es.client));
    assert.deepEqual(rebuilt, { from: index, to: upgrading.indexName(MAPPING_VERSION + 1), documents: 0, analyzer: 'german' });
    assert.equal((await upgrading.ensureIndex()).status, 'ready');
  });

  it('keeps an index that already exists when creating it again', async () => {
    const again = await manager.createVersionedIndex(MAPPING_VERSION);
    assert.equal(again.index, `${es.alias}-v${MAPPING_VERSION}`);
  });

  it('reports an index with an older mapping as needing a rebuild', async () => {
    const old = new IndexManager({ client: es.client, alias: `${es.alias}-old` });
    const index = old.indexName(7);
    await es.client.indices.create({
      index,
      settings: indexSettings(),
      mappings: { ...indexMappings('standard'), _meta: { mapping_version: MAPPING_VERSION - 1, analyzer: 'standard' } },
    });
    await old.switchAlias(null, index);
    assert.deepEqual(await old.ensureIndex(), {
      status: 'migration_needed',
      index,
      mappingVersion: MAPPING_VERSION - 1,
      requiredVersion: MAPPING_VERSION,
      analyzer: 'standard',
    });
  });

  it('refuses a concrete index that has the alias name', async () => {
    const clash = new IndexManager({ client: es.client, alias: `${es.alias}-clash` });
    await es.client.indices.create({ index: clash.alias, settings: indexSettings() });
    await assert.rejects(clash.ensureIndex(), IndexStateError);
  });

  it('moves the alias atomically and deletes indices idempotently', async () => {
    const moving = new IndexManager({ client: es.client, alias: `${es.alias}-move` });
    const first = (await moving.createVersionedIndex(1)).index;
    const second = (await moving.createVersionedIndex(2)).index;
    await moving.switchAlias(null, first);
    await moving.switchAlias(first, second);
    assert.deepEqual(await moving.aliasTargets(), [second]);
    await moving.deleteIndex(first);
    await moving.deleteIndex(first);
    assert.equal(await es.client.indices.exists({ index: first }), false);
  });
});
