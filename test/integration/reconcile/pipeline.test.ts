// The reconciler's one indexing pipeline against the testbed, in this process: pages listed and read by the
// smb-reader pool's functions (src/indexing/smb-reader/wiki-reads.ts) with the indexer account, rendered and written by
// the indexer pool's (src/indexing/indexer/write-batch.ts) through the pass's bulk writer into a scratch alias. Covers the post-write hook (written, moved, deleted, not a page, too
// large), full passes, a migration from an older mapping, and an unreachable Elasticsearch (drop and count).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { PageChanges } from '../../../src/indexing/reconciler/page-changes.js';
import { Reconciler, type ReconcilerShare } from '../../../src/indexing/reconciler/reconciler.js';
import { listNames, listWikiFolder, readPage, MAX_INDEXED_PAGE_BYTES } from '../../../src/indexing/smb-reader/wiki-reads.js';
import type { ShareSource } from '../../../src/indexing/reconciler/share-pass.js';
import { WikiIndex } from '../../../src/indexing/reconciler/wiki-index.js';
import { silentLog } from '../../../src/common/logger.js';
import { createSearchClient } from '../../../src/search/client.js';
import { indexMappings, indexSettings, MAPPING_VERSION } from '../../../src/search/mapping.js';
import { parseSearchRequest } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { userSidSet } from '../../../src/viewer/principal.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { testbedShare } from '../../support/smb-logons.js';
import { removeTree } from '../smb/testbed.js';
import { eventually } from '../wiki/wiki-service.js';
import { scratchIndex, type ScratchIndex } from '../search/scratch-index.js';

/** The index, the hook and the reconciler as the reconciler actor wires them, on one client and alias. */
interface Pipeline {
  index: WikiIndex;
  hook: PageChanges;
  reconciler: Reconciler;
  close(): Promise<void>;
}

describe('the indexing pipeline on the testbed', () => {
  let env: TestbedEnv;
  let es: ScratchIndex;
  let smb: SmbClient;
  let admin: SmbShare;
  let shares: ReconcilerShare[];
  let pipeline: Pipeline;
  let search: WikiSearch;
  const scratch = `_wikihook-${randomBytes(4).toString('hex')}`;

  const indexer = (share: string) => testbedShare(smb, env, env.indexer, share);
  /** What the smb-reader pool answers in the service, called in this thread. */
  const source = ({ server, share }: ReconcilerShare): ShareSource => ({
    listFolder: (path) => listWikiFolder(indexer(share), path),
    listNames: (path) => listNames(indexer(share), path),
    readPage: (path, known) => readPage(indexer(share), { server, share, path }, known),
  });
  const pipelineOn = (client: Client, alias: string): Pipeline => {
    const bulk = bulkWriterOn(client);
    const index = new WikiIndex({ client, bulk, alias, shares, source, oldIndexGraceMs: 0, log: silentLog });
    const hook = new PageChanges({
      bulk,
      alias,
      readPage: (page) => source(page).readPage(page.path),
      writable: () => index.writable,
      gatherMs: 50,
      log: silentLog,
    });
    const reconciler = new Reconciler({
      client, bulk, alias, index, shares, source, intervalMs: 3_600_000, firstPassDelayMs: 3_600_000, retryDelayMs: 3_600_000, log: silentLog,
    });
    return {
      index,
      hook,
      reconciler,
      async close() {
        await reconciler.stop(1_000);
        await hook.close(1_000);
      },
    };
  };
  const pass = (on: Pipeline) => on.reconciler.submit({ kind: 'pass' }, 'test').done;
  const page = (path: string) => ({ server: env.smb.host, share: 'schule', path });

  /** Paths (share:path) anna (Lehrer) finds for a word. */
  const annaFinds = async (word: string) => {
    const anna = env.users['anna']!;
    const sids = userSidSet({ userSid: anna.sid, groupSids: [env.groups['Lehrer']!, env.groups['Domain Users']!] });
    const viewer = { allowSids: sids, denySids: sids, shares: ['schule', 'verwaltung'] };
    return (await search.search(parseSearchRequest({ q: word }), viewer)).hits.map((h) => `${h.share}:${h.path}`);
  };

  before(async () => {
    env = await readTestbedEnv();
    es = await scratchIndex('pipeline');
    smb = new SmbClient();
    const { host } = env.smb;
    admin = testbedShare(smb, env, env.dc_admin, 'schule');
    await admin.mkdir(`${scratch}/.wiki`, { recursive: true });
    shares = env.smb.shares.map((s) => ({ server: host, share: s.name }));
    pipeline = pipelineOn(es.client, es.alias);
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(async () => {
    await pipeline?.close();
    await removeTree(admin, scratch).catch(() => undefined);
    await smb?.close();
    await es?.drop();
  });

  it('drops and counts page changes while the index is not prepared', () => {
    pipeline.hook.pageChanged({ type: 'page-written', page: page('.wiki/index.md') });
    assert.equal(pipeline.hook.stats().hook.dropped, 1);
    assert.equal(pipeline.index.stats().status, 'unprepared');
  });

  it('indexes every page in a first pass and nothing in the next (versions match)', async () => {
    const first = await pass(pipeline);
    assert.deepEqual(first.errors, []);
    assert.ok(first.seen >= 12, `${first.seen} pages listed`);
    assert.equal(first.indexed, first.seen);
    const second = await pass(pipeline);
    assert.deepEqual([second.seen, second.indexed, second.removed, second.failed], [first.seen, 0, 0, 0]);
    assert.deepEqual(await annaFinds('Pythagoras'), []);
    assert.deepEqual(await annaFinds('Vertretungsplan'), ['schule:Lehrerzimmer/.wiki/index.md']);
  });

  it('post-write hook: a written page is indexed', async () => {
    const path = `${scratch}/.wiki/hook.md`;
    await admin.writeFile(path, '# Hook\n\nHakenwortdelta steht hier.\n');
    pipeline.hook.pageChanged({ type: 'page-written', page: page(path) });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), [`schule:${path}`]));
  });

  it('post-write hook: a page over the size limit is left as the index has it, as a pass leaves it', async () => {
    const path = `${scratch}/.wiki/hook.md`;
    const before = pipeline.hook.stats().hook;
    await admin.writeFile(path, `# Hook\n\nRiesenwortgamma\n${'x'.repeat(MAX_INDEXED_PAGE_BYTES)}\n`);
    pipeline.hook.pageChanged({ type: 'page-written', page: page(path) });
    await eventually(async () => assert.equal(pipeline.hook.stats().hook.failed, before.failed + 1));
    const repaired = await pass(pipeline);
    assert.equal(repaired.failed, 1, 'the pass does not index it either');
    assert.deepEqual(await annaFinds('Riesenwortgamma'), []);
    assert.deepEqual(await annaFinds('Hakenwortdelta'), [`schule:${path}`], 'the last indexed version stays');
    await admin.writeFile(path, '# Hook\n\nHakenwortdelta steht hier.\n');
  });

  it('post-write hook: a moved page is found under its new path only', async () => {
    const from = `${scratch}/.wiki/hook.md`;
    const to = `${scratch}/.wiki/haken.md`;
    await admin.rename(from, to);
    pipeline.hook.pageChanged({ type: 'page-moved', from: page(from), to: page(to) });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), [`schule:${to}`]));
  });

  it('post-write hook: deleted pages and pages that vanished before reading leave the index', async () => {
    const path = `${scratch}/.wiki/haken.md`;
    pipeline.hook.pageChanged({ type: 'page-deleted', page: page(path) });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), []));
    const vanished = `${scratch}/.wiki/kurz.md`;
    await admin.writeFile(vanished, '# Kurz\n\nKurzlebigwort\n');
    pipeline.hook.pageChanged({ type: 'page-written', page: page(vanished) });
    await eventually(async () => assert.deepEqual(await annaFinds('Kurzlebigwort'), [`schule:${vanished}`]));
    await admin.unlink(vanished);
    pipeline.hook.pageChanged({ type: 'page-written', page: page(vanished) });
    await eventually(async () => assert.deepEqual(await annaFinds('Kurzlebigwort'), []));
  });

  it('post-write hook: changes to files that are not wiki pages are ignored', async () => {
    const before = pipeline.hook.stats().hook;
    pipeline.hook.pageChanged({ type: 'page-written', page: page('Aushang.txt') });
    pipeline.hook.pageChanged({ type: 'page-deleted', page: page('Lehrerzimmer/Protokolle/x.md') });
    await eventually(async () => assert.equal(pipeline.hook.stats().hook.ignored, before.ignored + 2));
    assert.equal(pipeline.hook.stats().hook.failed, before.failed);
  });

  it('migrates an index with an older mapping through a rebuild from a full walk and moves the alias', async () => {
    const alias = `${es.alias}-old`;
    const old = `${alias}-v0`;
    const mappings = { ...indexMappings('standard'), _meta: { mapping_version: 0, analyzer: 'standard' } };
    await es.client.indices.create({ index: old, settings: indexSettings(), mappings, aliases: { [alias]: {} } });
    const migrated = pipelineOn(es.client, alias);
    try {
      await migrated.index.prepare();
      assert.equal(migrated.index.stats().status, 'ready');
      assert.equal(migrated.index.stats().index, `${alias}-v${MAPPING_VERSION}`, 'the first generation of this build\'s mapping');
      assert.equal(await es.client.indices.exists({ index: old }), false);
      const { count } = await es.client.count({ index: alias });
      assert.equal(count, (await pass(migrated)).seen);
    } finally {
      await migrated.close();
    }
  });

  it('with Elasticsearch unreachable: the pass reports the index error, changes are dropped and counted', async () => {
    const client = createSearchClient({ nodes: ['http://127.0.0.1:1'] }, { requestTimeoutMs: 2_000, maxRetries: 0 });
    const offline = pipelineOn(client, es.alias);
    try {
      const report = await pass(offline);
      assert.equal(report.errors.length, 1);
      assert.match(report.errors[0]!, /ECONNREFUSED/);
      assert.equal(report.seen, 0, 'the shares are not walked for an index that cannot be reached');
      offline.hook.pageChanged({ type: 'page-written', page: page('.wiki/index.md') });
      const { hook, bulk } = offline.hook.stats();
      assert.deepEqual([hook.dropped, bulk.dropped], [1, 0]);
    } finally {
      await offline.close();
      await client.close();
    }
  });
});
