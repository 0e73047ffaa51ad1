// How many pages a search says it found, and paging through pages of equal score: the search counts matches up to
// the paging window (10,000) and sorts by score alone (src/search/query.ts, COUNTED_MATCHES), so ties come in the
// index's own order; while the index is unchanged, every page of hits of one search must come from that one order,
// none skipped, none twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { COUNTED_MATCHES, parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { buildWikiDocument } from '../../../src/wiki/document.js';
import { NO_DACL, indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

const viewer: Viewer = { allowSids: ['S-1-1-0'], denySids: ['S-1-1-0'], shares: ['schule'] };
/** More pages than are counted, all alike: every one matches with the same score. */
const ALIKE = COUNTED_MATCHES + 50;
const PAGE_SIZE = 100;

function page(path: string, content: string) {
  return buildWikiDocument({
    server: 'dc1', share: 'schule', path, content, size: content.length, modified: new Date(0),
    acl: NO_DACL,
  });
}

describe('search: counting matches and paging through ties', () => {
  let es: ScratchIndex;
  let search: WikiSearch;
  before(async () => {
    es = await scratchIndex('counting');
    await new IndexManager({ client: es.client, alias: es.alias }).ensureIndex();
    const alike = Array.from({ length: ALIKE }, (_, n) => page(`Klasse-${n % 37}/.wiki/Seite${n}.md`, '# Elternabend\n\nDer Elternabend ist am Montag.\n'));
    const rare = [1, 2, 3].map((n) => page(`Archiv/.wiki/Chronik${n}.md`, '# Chronik\n\nDie Schulchronik von 1950.\n'));
    assert.equal((await indexDocuments(es, [...alike, ...rare])).upserted, ALIKE + 3);
    // The index's own order holds while its segments do: a background merge becoming visible between two pages
    // reorders the ties (a CI run saw it). One segment, merged now, keeps the order fixed for the paging below.
    await es.client.indices.forcemerge({ index: es.alias, max_num_segments: 1 });
    await es.client.indices.refresh({ index: es.alias });
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(() => es.drop());

  it('counts every match while they fit the paging window, and says so', async () => {
    const result = await search.search(parseSearchRequest({ q: 'Chronik' }), viewer);
    assert.equal(result.total, 3);
    assert.equal(result.total_at_least, undefined);
  });

  it('stops counting at the paging window and says the total is a lower bound', async () => {
    const result = await search.search(parseSearchRequest({ q: 'Elternabend' }), viewer);
    assert.equal(result.total, COUNTED_MATCHES);
    assert.equal(result.total_at_least, true);
  });

  it('pages through pages of equal score without skipping one or showing one twice', async () => {
    const seen: string[] = [];
    for (let from = 0; from < 10 * PAGE_SIZE; from += PAGE_SIZE) {
      const { hits } = await search.search(parseSearchRequest({ q: 'Elternabend', from, size: PAGE_SIZE }), viewer);
      assert.equal(hits.length, PAGE_SIZE);
      assert.equal(new Set(hits.map((hit) => hit.score)).size, 1, 'the pages are alike, so their scores are equal');
      seen.push(...hits.map((hit) => hit.path));
    }
    assert.equal(new Set(seen).size, seen.length, 'a page shown twice, so another was skipped');
    // The same search again gives the same order.
    const again = await search.search(parseSearchRequest({ q: 'Elternabend', from: 0, size: PAGE_SIZE }), viewer);
    assert.deepEqual(again.hits.map((hit) => hit.path), seen.slice(0, PAGE_SIZE));
  });
});
