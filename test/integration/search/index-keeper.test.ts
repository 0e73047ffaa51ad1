// WikiIndexKeeper (what the reconciler actor runs) against the testbed: pages read over SMB with the indexer
// account, rendered, written into a scratch alias. Covers the post-write hook (written, moved, deleted, not a
// page), full passes, a rebuild from an older mapping, and an unreachable Elasticsearch (drop and count).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSearchClient } from '../../../src/search/client.js';
import { WikiIndexKeeper, type IndexKeeperOptions, type PageSource } from '../../../src/search/index-keeper.js';
import { indexMappings, indexSettings } from '../../../src/search/mapping.js';
import { parseSearchRequest } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { buildWikiDocument } from '../../../src/wiki/document.js';
import { userSidSet } from '../../../src/wiki/principal.js';
import { listWikiPages, readWikiPage } from '../../../src/wiki/share-reader.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { removeTree } from '../smb/testbed.js';
import { eventually } from '../wiki/wiki-service.js';
import { scratchIndex, type ScratchIndex } from './scratch-index.js';

describe('WikiIndexKeeper on the testbed', () => {
  let env: TestbedEnv;
  let es: ScratchIndex;
  let smb: SmbClient;
  let admin: SmbShare;
  let keeper: WikiIndexKeeper;
  let search: WikiSearch;
  const scratch = `_wikihook-${randomBytes(4).toString('hex')}`;
  let options: IndexKeeperOptions;

  /** Paths (share:path) anna (Lehrer) finds for a word. */
  const annaFinds = async (word: string) => {
    const anna = env.users['anna']!;
    const sids = userSidSet({ userSid: anna.sid, groupSids: [env.groups['Lehrer']!, env.groups['Domain Users']!] });
    const viewer = { allowSids: sids, denySids: sids, shares: ['schule', 'verwaltung'] };
    return (await search.search(parseSearchRequest({ q: word }), viewer)).hits.map((h) => `${h.share}:${h.path}`);
  };

  before(async () => {
    env = await readTestbedEnv();
    es = await scratchIndex('keeper');
    smb = new SmbClient();
    const { host, port, domain } = env.smb;
    admin = smb.share({ host, port, domain, user: env.dc_admin.user, password: env.dc_admin.password, share: 'schule' });
    await admin.mkdir(`${scratch}/.wiki`, { recursive: true });
    const indexer = (share: string) => smb.share({ host, port, domain, user: env.indexer.user, password: env.indexer.password, share });
    const source: PageSource = {
      listPages: async (_server, share) => listWikiPages(indexer(share)),
      readPage: (page) => readWikiPage(indexer(page.share), page.path),
      renderPage: async (page) => buildWikiDocument(page),
    };
    options = {
      client: es.client,
      alias: es.alias,
      source,
      shares: env.smb.shares.map((s) => ({ server: host, share: s.name })),
      bulk: { flushIntervalMs: 50, refresh: 'wait_for' },
      oldIndexGraceMs: 0,
    };
    keeper = new WikiIndexKeeper(options);
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(async () => {
    await keeper?.close(1_000);
    await removeTree(admin, scratch).catch(() => undefined);
    await smb?.close();
    await es?.drop();
  });

  it('drops and counts page changes while the index is not prepared', () => {
    keeper.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path: '.wiki/index.md' } });
    assert.equal(keeper.stats().hook.dropped, 1);
    assert.equal(keeper.stats().status, 'unprepared');
  });

  it('indexes every page in a first pass and nothing in the next (versions match)', async () => {
    const first = await keeper.reconcile();
    assert.deepEqual(first.errors, []);
    assert.ok(first.listed >= 12, `${first.listed} pages listed`);
    assert.equal(first.indexed, first.listed);
    const second = await keeper.reconcile();
    assert.deepEqual([second.listed, second.indexed, second.deleted, second.failed], [first.listed, 0, 0, 0]);
    assert.deepEqual(await annaFinds('Pythagoras'), []);
    assert.deepEqual(await annaFinds('Vertretungsplan'), ['schule:Lehrerzimmer/.wiki/index.md']);
  });

  it('post-write hook: a written page is indexed', async () => {
    const path = `${scratch}/.wiki/hook.md`;
    await admin.writeFile(path, '# Hook\n\nHakenwortdelta steht hier.\n');
    keeper.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path } });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), [`schule:${path}`]));
  });

  it('post-write hook: a moved page is found under its new path only', async () => {
    const from = `${scratch}/.wiki/hook.md`;
    const to = `${scratch}/.wiki/haken.md`;
    await admin.rename(from, to);
    keeper.pageChanged({ type: 'page-moved', from: { server: env.smb.host, share: 'schule', path: from }, to: { server: env.smb.host, share: 'schule', path: to } });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), [`schule:${to}`]));
  });

  it('post-write hook: deleted pages and pages that vanished before reading leave the index', async () => {
    const path = `${scratch}/.wiki/haken.md`;
    keeper.pageChanged({ type: 'page-deleted', page: { server: env.smb.host, share: 'schule', path } });
    await eventually(async () => assert.deepEqual(await annaFinds('Hakenwortdelta'), []));
    const vanished = `${scratch}/.wiki/kurz.md`;
    await admin.writeFile(vanished, '# Kurz\n\nKurzlebigwort\n');
    keeper.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path: vanished } });
    await eventually(async () => assert.deepEqual(await annaFinds('Kurzlebigwort'), [`schule:${vanished}`]));
    await admin.unlink(vanished);
    keeper.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path: vanished } });
    await eventually(async () => assert.deepEqual(await annaFinds('Kurzlebigwort'), []));
  });

  it('post-write hook: changes to files that are not wiki pages are ignored', async () => {
    const before = keeper.stats().hook;
    keeper.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path: 'Aushang.txt' } });
    keeper.pageChanged({ type: 'page-deleted', page: { server: env.smb.host, share: 'schule', path: 'Lehrerzimmer/Protokolle/x.md' } });
    await eventually(async () => assert.equal(keeper.stats().hook.ignored, before.ignored + 2));
    assert.equal(keeper.stats().hook.failed, 0);
  });

  it('rebuilds an index with an older mapping from a full walk and moves the alias', async () => {
    const alias = `${es.alias}-old`;
    const old = `${alias}-v0`;
    const mappings = { ...indexMappings('standard'), _meta: { mapping_version: 0, analyzer: 'standard' } };
    await es.client.indices.create({ index: old, settings: indexSettings(), mappings, aliases: { [alias]: {} } });
    const rebuilt = new WikiIndexKeeper({ ...options, alias });
    try {
      await rebuilt.prepare();
      assert.equal(rebuilt.stats().status, 'ready');
      assert.equal(rebuilt.stats().index, `${alias}-v1`);
      assert.equal(await es.client.indices.exists({ index: old }), false);
      const { count } = await es.client.count({ index: alias });
      assert.equal(count, (await rebuilt.reconcile()).listed);
    } finally {
      await rebuilt.close(1_000);
    }
  });

  it('with Elasticsearch unreachable: the pass reports the index error, changes are dropped and counted', async () => {
    const client = createSearchClient('http://127.0.0.1:1', { requestTimeoutMs: 2_000, maxRetries: 0 });
    const offline = new WikiIndexKeeper({ ...options, client });
    try {
      const pass = await offline.reconcile();
      assert.equal(pass.errors.length, 1);
      assert.match(pass.errors[0]!, /ECONNREFUSED/);
      assert.equal(pass.listed, 0, 'the shares are not walked for an index that cannot be reached');
      offline.pageChanged({ type: 'page-written', page: { server: env.smb.host, share: 'schule', path: '.wiki/index.md' } });
      assert.deepEqual([offline.stats().hook.dropped, offline.stats().dropped], [1, 1]);
    } finally {
      await offline.close(1_000);
      await client.close();
    }
  });
});
