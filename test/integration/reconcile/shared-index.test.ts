// Several proxies on one index, as school sites sharing an Elasticsearch cluster: two services with disjoint shares
// (one serves `schule`, the other `verwaltung`) and a document of a third site (another server's `schule`). Both
// start at once on an alias whose index has an older mapping: one of them builds the new version, exactly once,
// while searches keep answering. Then a reindex, a pass and a rebuild of each leave the other's documents as they
// were, and each service finds only the pages of the (server, share) pairs it serves. A third proxy serving the same
// share as the first finds a page saved through the first; the other share's does not; neither's pass disturbs it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { shareQuery, type IndexedShare } from '../../../src/indexing/reconciler/inventory.js';
import { indexMappings, indexSettings, MAPPING_VERSION } from '../../../src/search/mapping.js';
import { parseSearchRequest } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { buildWikiDocument } from '../../../src/wiki/document.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { account, DavClient } from '../webdav/dav-client.js';
import { eventually, passAfter, WikiClient, type Caller } from '../wiki/wiki-service.js';
import { runJob, SERVER } from './support.js';
import { NO_DACL } from '../search/scratch-index.js';
import { testSearchClient } from '../../support/es-indices.js';

const ADMIN: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
const ANNA: Caller = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };
const SCHULE = { server: SERVER, share: 'schule' };
const VERWALTUNG = { server: SERVER, share: 'verwaltung' };
/** A page of another site, whose server also has a share called `schule`. */
const NORD = { server: 'fs-nord.bezirk.test', share: 'schule' };

/** Count and latest indexed_at of one share's documents: a write to any of them changes the latter. */
async function shareState(es: Client, alias: string, share: IndexedShare): Promise<{ count: number; latest: unknown }> {
  await es.indices.refresh({ index: alias });
  const response = await es.search({ index: alias, size: 0, query: shareQuery(share), aggs: { latest: { max: { field: 'indexed_at' } } } });
  const total = response.hits.total;
  return { count: typeof total === 'number' ? total : (total?.value ?? 0), latest: (response.aggregations?.['latest'] as { value: unknown }).value };
}

describe('proxies on one index: two with disjoint shares, and a third serving the share of the first', () => {
  let env: TestbedEnv;
  let es: Client;
  const alias = `test-shared-${randomBytes(4).toString('hex')}`;
  /** A serves schule, B verwaltung; C (the last test's) serves schule too. */
  const services: Record<'schule' | 'verwaltung' | 'schuleToo', RunningService | undefined> = { schule: undefined, verwaltung: undefined, schuleToo: undefined };
  const start = (share: 'schule' | 'verwaltung') => startService({
    smb: { shares: [{ name: share }] },
    elasticsearch: { index_prefix: alias },
    // A pass that found the new version being built by the other proxy is tried again after the interval when that
    // is shorter than the 30 s of a failed pass's retry (src/indexing/reconciler/reconciler.ts): 5 s took the first
    // test 35 s down to 10 (alone on the 2-core AMD host). The passes in between find nothing changed and write nothing.
    reconciler: { interval: '5s', watch: false },
  });
  const state = (share: IndexedShare) => shareState(es, alias, share);

  before(async () => {
    env = await readTestbedEnv();
    es = testSearchClient(env.es.url);
    // The alias on an index of an older mapping, holding the other site's page.
    const old = `${alias}-v0`;
    await es.indices.create({ index: old, settings: indexSettings(), mappings: { ...indexMappings('standard'), _meta: { mapping_version: 0, analyzer: 'standard' } } });
    const { id, ...source } = buildWikiDocument({
      ...NORD, path: 'Nord/.wiki/index.md', content: '# Nord\n\nNordlichtwort steht hier.\n', size: 30, modified: new Date(),
      acl: NO_DACL,
    });
    await es.index({ index: old, id, document: source, refresh: true });
    await es.indices.updateAliases({ actions: [{ add: { index: old, alias } }] });
  });
  after(async () => {
    await Promise.all(Object.values(services).map((s) => s?.stop()));
    const indices = Object.keys(await es.indices.get({ index: `${alias}*`, allow_no_indices: true }));
    if (indices.length > 0) await es.indices.delete({ index: indices });
    await es.close();
  });

  it('two starting at once with a newer mapping build one new version; searches answer throughout', async () => {
    // Why a search answered degraded, for the assertion's message (the service logs it the same way).
    const degradedBecause: string[] = [];
    const log = { info: () => undefined, warn: (details: object) => { degradedBecause.push(JSON.stringify(details)); } };
    const search = new WikiSearch({ client: es, alias, log });
    const viewer = { allowSids: ['S-1-1-0'], denySids: ['S-1-1-0'], shares: ['schule'] };
    const outcomes = new Set<string>();
    let searching = true;
    const loop = (async () => {
      while (searching) {
        const result = await search.search(parseSearchRequest({ q: 'Nordlichtwort' }), viewer);
        outcomes.add(result.degraded ? 'degraded' : `total ${result.total}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      const started = Date.now();
      [services.schule, services.verwaltung] = await Promise.all([start('schule'), start('verwaltung')]);
      // The proxy that found the build taken retries its pass at its next interval, on the new index.
      await Promise.all([services.schule, services.verwaltung].map(async (service) => {
        for (;;) {
          const pass = await passAfter(service!, started, 90_000);
          if (pass.errors.length === 0) return;
          assert.match(pass.errors.join(' '), /is building|newer mapping/, JSON.stringify(pass.errors));
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }));
    } finally {
      searching = false;
      await loop;
    }
    assert.deepEqual([...outcomes], ['total 1'], `every search found the other site's page, none degraded (${degradedBecause.join('; ')})`);
    const versions = Object.keys(await es.indices.get({ index: `${alias}-v*` }));
    assert.deepEqual(versions, [`${alias}-v${MAPPING_VERSION}`], 'exactly one new index version, the old one gone');
    assert.equal((await state(NORD)).count, 1, 'the other site\'s page was carried over');
    assert.ok((await state(SCHULE)).count >= 9, 'schule indexed');
    assert.ok((await state(VERWALTUNG)).count >= 1, 'verwaltung indexed');
  });

  for (const [own, other] of [['schule', 'verwaltung'], ['verwaltung', 'schule']] as const) {
    it(`a reindex, a pass and a rebuild of the ${own} proxy leave the other shares' documents untouched`, async () => {
      const others = [other === 'schule' ? SCHULE : VERWALTUNG, NORD];
      const before = await Promise.all(others.map(state));
      const ownBefore = await state(own === 'schule' ? SCHULE : VERWALTUNG);
      for (const kind of ['reindex', 'pass'] as const) {
        const job = await runJob(services[own]!, { kind });
        assert.deepEqual([job.state, job.errors], ['finished', []], kind);
        assert.deepEqual(await Promise.all(others.map(state)), before, `after the ${kind}`);
      }
      const ownAfter = await state(own === 'schule' ? SCHULE : VERWALTUNG);
      assert.equal(ownAfter.count, ownBefore.count);
      assert.notDeepEqual(ownAfter.latest, ownBefore.latest, 'the reindex wrote the own share again');
      const rebuild = await runJob(services[own]!, { kind: 'rebuild' });
      assert.deepEqual([rebuild.state, rebuild.errors], ['finished', []]);
      assert.deepEqual(await Promise.all(others.map(state)), before, 'after the rebuild: copied as they were');
    });
  }

  it('each proxy finds only the pages of the (server, share) pairs it serves', async () => {
    const schule = new WikiClient(services.schule!.url, env);
    const verwaltung = new WikiClient(services.verwaltung!.url, env);
    assert.deepEqual(await schule.searchedPages(ADMIN, { q: 'Vertretungsplan' }), ['schule:Lehrerzimmer/.wiki/index.md']);
    assert.deepEqual(await verwaltung.searchedPages(ADMIN, { q: 'Vertretungsplan' }), []);
    // Same share name, another server: the other site's page stays out of this site's answers.
    assert.deepEqual(await schule.searchedPages(ADMIN, { q: 'Nordlichtwort' }), []);
    assert.ok((await schule.roots(ADMIN)).roots.every((root) => root.folder !== 'Nord'));
  });

  it('a page saved through one proxy is found through a third that serves the same share, not through the other share\'s; their passes leave it in place', async () => {
    // Proxy C: another proxy in front of the same file server's `schule`, as for load.
    const since = Date.now();
    services.schuleToo = await start('schule');
    await passAfter(services.schuleToo, since);
    const [a, b, c] = [services.schule!, services.verwaltung!, services.schuleToo].map((service) => new WikiClient(service.url, env));
    const dav = new DavClient(services.schule!, account(env, 'fpadmin'), 'schule');
    const folder = `_shared-${randomBytes(4).toString('hex')}`;
    const page = `${folder}/.wiki/index.md`;
    /** The page's document: what a pass that rewrote or removed it would change. */
    const indexed = async () => {
      await es.indices.refresh({ index: alias });
      const response = await es.search({ index: alias, seq_no_primary_term: true, query: { bool: { filter: [shareQuery(SCHULE), { term: { path: page } }] } } });
      return response.hits.hits.map((hit) => ({ id: hit._id, seqNo: hit._seq_no }));
    };
    try {
      assert.equal(await dav.mkcol(folder), 201);
      assert.equal(await dav.mkcol(`${folder}/.wiki`), 201);
      assert.equal((await dav.put(page, '# Geteilt\n\nGemeinsamkeitswort steht hier.\n')).status, 201);
      // Anna may read it (Domain Users read at the share root), so only the share decides where she finds it.
      await eventually(async () => assert.deepEqual(await a.searchedPages(ANNA, { q: 'Gemeinsamkeitswort' }), [`schule:${page}`]));
      assert.deepEqual(await c.searchedPages(ANNA, { q: 'Gemeinsamkeitswort' }), [`schule:${page}`], 'found through C, which serves schule too');
      assert.deepEqual(await b.searchedPages(ANNA, { q: 'Gemeinsamkeitswort' }), [], 'not found through B, which serves only verwaltung');

      const document = await indexed();
      assert.equal(document.length, 1, JSON.stringify(document));
      for (const [name, service] of [['B', services.verwaltung!], ['C', services.schuleToo]] as const) {
        const pass = await runJob(service, { kind: 'pass' });
        assert.deepEqual([pass.state, pass.errors], ['finished', []], `${name}'s pass`);
        assert.deepEqual(await indexed(), document, `${name}'s pass left A's page as it was`);
      }
      assert.deepEqual(await c.searchedPages(ANNA, { q: 'Gemeinsamkeitswort' }), [`schule:${page}`]);
    } finally {
      await dav.remove(folder);
    }
    // The delete through A removes the page's document too.
    await eventually(async () => assert.deepEqual(await indexed(), []));
  });
});
