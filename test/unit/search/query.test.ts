import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { estypes } from '@elastic/elasticsearch';
import {
  buildPageListBody,
  buildRootsBody,
  parseSearchRequest,
  parseSuggestRequest,
  searchBodyJson,
  SearchRequestError,
  suggestBody,
  viewerFilter,
  type Viewer,
} from '../../../src/search/query.js';

function fieldOf(body: unknown): string {
  try {
    parseSearchRequest(body);
  } catch (error) {
    assert.ok(error instanceof SearchRequestError, String(error));
    assert.ok(error.message.startsWith(`${error.field}: `));
    return error.field;
  }
  assert.fail(`${JSON.stringify(body)} was accepted`);
}

/** Narrowed by the header to group 1101; the whole token also holds group 1102. */
const viewer: Viewer = {
  allowSids: ['S-1-5-21-9-1101', 'S-1-1-0'],
  denySids: ['S-1-5-21-9-1101', 'S-1-5-21-9-1102', 'S-1-1-0'],
  shares: ['schule', 'verwaltung'],
};
const nobody = { allowSids: [], denySids: ['S-1-1-0'], shares: ['schule'] };

describe('parseSearchRequest', () => {
  it('fills defaults and trims the query', () => {
    assert.deepEqual(parseSearchRequest({ q: '  Lehrplan ' }), { q: 'Lehrplan', share: undefined, folder: undefined, from: 0, size: 10 });
    assert.deepEqual(parseSearchRequest({ q: 'x', share: 'schule', folder: 'Fachschaften/Deutsch', from: 20, size: 100 }), {
      q: 'x',
      share: 'schule',
      folder: 'Fachschaften/Deutsch',
      from: 20,
      size: 100,
    });
  });

  it('names the field that breaks a rule', () => {
    assert.equal(fieldOf(null), 'body');
    assert.equal(fieldOf([]), 'body');
    assert.equal(fieldOf({}), 'q');
    assert.equal(fieldOf({ q: '   ' }), 'q');
    assert.equal(fieldOf({ q: 42 }), 'q');
    assert.equal(fieldOf({ q: 'x'.repeat(501) }), 'q');
    assert.equal(fieldOf({ q: 'x', share: '' }), 'share');
    assert.equal(fieldOf({ q: 'x', share: 3 }), 'share');
    assert.equal(fieldOf({ q: 'x', folder: 'a' }), 'folder');
    assert.equal(fieldOf({ q: 'x', share: 's', folder: '../etc' }), 'folder');
    assert.equal(fieldOf({ q: 'x', size: 101 }), 'size');
    assert.equal(fieldOf({ q: 'x', size: 0 }), 'size');
    assert.equal(fieldOf({ q: 'x', size: 2.5 }), 'size');
    assert.equal(fieldOf({ q: 'x', size: '10' }), 'size');
    assert.equal(fieldOf({ q: 'x', from: -1 }), 'from');
    assert.equal(fieldOf({ q: 'x', from: 9950, size: 100 }), 'from');
    assert.equal(fieldOf({ q: 'x', sort: 'title' }), 'sort');
  });
});

describe('viewerFilter', () => {
  it('requires an allow SID in acl_allow, no SID of the whole token in acl_deny, and a visible share', () => {
    assert.deepEqual(viewerFilter(viewer), {
      filter: [{ terms: { acl_allow: viewer.allowSids } }, { terms: { share: ['schule', 'verwaltung'] } }],
      must_not: [{ terms: { acl_deny: viewer.denySids } }],
    });
  });

  it('with the servers of the service\'s shares, matches each share together with its server', () => {
    const servers = new Map([['schule', 'fs1.schule.local'], ['verwaltung', 'fs2.schule.local']]);
    const pair = (server: string, share: string) => ({ bool: { filter: [{ term: { server } }, { term: { share } }] } });
    assert.deepEqual(viewerFilter({ ...viewer, servers })!.filter, [
      { terms: { acl_allow: viewer.allowSids } },
      { bool: { should: [pair('fs1.schule.local', 'schule'), pair('fs2.schule.local', 'verwaltung')], minimum_should_match: 1 } },
    ]);
    assert.deepEqual(viewerFilter({ ...viewer, servers }, { share: 'verwaltung' })!.filter, [
      { terms: { acl_allow: viewer.allowSids } },
      { bool: { should: [pair('fs2.schule.local', 'verwaltung')], minimum_should_match: 1 } },
    ]);
  });

  it('is null when the viewer can see nothing: no SIDs, no shares, or a share not visible', () => {
    assert.equal(viewerFilter(nobody), null);
    assert.equal(viewerFilter({ allowSids: ['S-1-1-0'], denySids: ['S-1-1-0'], shares: [] }), null);
    assert.equal(viewerFilter(viewer, { share: 'geheim' }), null);
  });

  it('narrows to one share and to a folder with everything below it, compared case-insensitively', () => {
    const bool = viewerFilter(viewer, { share: 'schule', folder: '/Fachschaften/Deutsch/' })!;
    assert.deepEqual(bool.filter, [
      { terms: { acl_allow: viewer.allowSids } },
      { terms: { share: ['schule'] } },
      { term: { folder_ancestors: 'fachschaften/deutsch' } },
    ]);
    assert.equal((viewerFilter(viewer, { share: 'schule', folder: '' })!.filter as unknown[]).length, 2);
  });

  it('matches one folder exactly for page lists, the share root included', () => {
    const bool = viewerFilter(viewer, { share: 'schule', folder: '', folderMatch: 'exact' })!;
    assert.deepEqual((bool.filter as unknown[])[2], { term: { folder_key: '' } });
  });
});

describe('request bodies', () => {
  it('searches title, headings and body with escaped <mark> highlights', () => {
    const body = JSON.parse(searchBodyJson(parseSearchRequest({ q: 'Prüfung "exakt"', size: 5, from: 5 }), viewer)!) as estypes.SearchRequest;
    assert.equal(body.size, 5);
    assert.equal(body.from, 5);
    const bool = body.query!.bool!;
    // "exakt" (with its quotes) is no compound part: only the words of letters are.
    assert.deepEqual(bool.must, [{
      bool: {
        should: [
          { multi_match: { query: 'Prüfung', fields: ['title^3', 'headings^2', 'body'], type: 'cross_fields', operator: 'and' } },
          { multi_match: { query: '"exakt"', fields: ['title^3', 'headings^2', 'body'], type: 'cross_fields', operator: 'and' } },
          { match_bool_prefix: { title: { query: 'Prüfung', boost: 3 } } },
        ],
        minimum_should_match: 1,
      },
    }]);
    assert.deepEqual(bool.must_not, [{ terms: { acl_deny: viewer.denySids } }]);
    assert.deepEqual(bool.filter, viewerFilter(viewer)!.filter);
    assert.deepEqual(body._source, ['share', 'folder', 'page', 'path', 'title', 'modified', 'acl_allow', 'acl_deny']);
    // Matches counted as far as paging reaches, the hits by score alone: Elasticsearch may then skip pages.
    assert.equal(body.track_total_hits, 10_000);
    assert.equal(body.sort, undefined);
    assert.equal(body.highlight!.encoder, 'html');
    assert.deepEqual(body.highlight!.pre_tags, ['<mark>']);
    assert.deepEqual(body.highlight!.post_tags, ['</mark>']);
  });

  it('marks the words and the joined pairs, not the parts of title words', () => {
    const body = JSON.parse(searchBodyJson(parseSearchRequest({ q: 'Bruch Rechnung' }), viewer)!) as estypes.SearchRequest;
    const should = (body.query!.bool!.must as estypes.QueryDslQueryContainer[])[0]!.bool!.should as estypes.QueryDslQueryContainer[];
    assert.deepEqual(body.highlight!.highlight_query, { bool: { should: should.slice(0, 3), minimum_should_match: 1 } });
    assert.deepEqual(should.slice(0, 3).map((clause) => clause.multi_match!.query), ['Bruch', 'Rechnung', 'BruchRechnung']);
  });

  it('matches a typed word that the analyzer cuts into parts only with all of its parts', () => {
    const body = JSON.parse(searchBodyJson(parseSearchRequest({ q: 'Klasse-5a Fußball-AG' }), viewer)!) as estypes.SearchRequest;
    const should = (body.query!.bool!.must as estypes.QueryDslQueryContainer[])[0]!.bool!.should as estypes.QueryDslQueryContainer[];
    assert.deepEqual(should.filter((clause) => clause.multi_match !== undefined).map(({ multi_match: m }) => [m!.query, m!.operator]), [
      ['Klasse-5a', 'and'],
      ['Fußball-AG', 'and'],
    ]);
  });

  it('looks for neighbouring words as one compound and for each word of 4 letters or more as the start of a title word, in the first 10 words', () => {
    const should = (q: string) => {
      const body = JSON.parse(searchBodyJson(parseSearchRequest({ q }), viewer)!) as estypes.SearchRequest;
      return ((body.query!.bool!.must as estypes.QueryDslQueryContainer[])[0]!.bool!.should as estypes.QueryDslQueryContainer[]);
    };
    const bruch = should('Bruch Rechnung');
    assert.deepEqual(bruch[2], { multi_match: { query: 'BruchRechnung', fields: ['title^3', 'headings^2', 'body'], type: 'cross_fields', operator: 'and', boost: 2 } });
    assert.deepEqual(bruch.slice(3).map((clause) => clause.match_bool_prefix!['title']), [
      { query: 'Bruch', boost: 3 },
      { query: 'Rechnung', boost: 3 },
    ]);
    assert.equal(should('AG Heft').length, 3, 'each word, Heft as the start of a title word');
    const long = Array.from({ length: 12 }, (_, i) => `Wort${'x'.repeat(i)}`).join(' ');
    assert.equal(should(long).length, 12 + 9 + 10, 'each word, and joined pairs and starts of the first 10 words');
  });

  it('the typo try matches each word on its own with the documented fuzziness, under the same filter', () => {
    const request = parseSearchRequest({ q: ' Bruchrechung  Klasse ' });
    const body = JSON.parse(searchBodyJson(request, viewer, 'typo')!) as estypes.SearchRequest;
    const options = { fields: ['title^3', 'headings^2', 'body'], type: 'best_fields', operator: 'and', fuzziness: 'AUTO:4,7' };
    assert.deepEqual(body.query!.bool!.must, [
      { multi_match: { query: 'Bruchrechung', ...options } },
      { multi_match: { query: 'Klasse', ...options } },
    ]);
    const exact = JSON.parse(searchBodyJson(request, viewer)!) as estypes.SearchRequest;
    assert.deepEqual({ ...body.query!.bool!, must: [] }, { ...exact.query!.bool!, must: [] });
    const { highlight_query: marked, ...highlight } = exact.highlight!;
    assert.ok(marked, 'the exact try marks its words only');
    assert.deepEqual(body.highlight, highlight, 'the typo try marks what its fuzzy words matched');
  });

  it('suggests under the search filter: every typed word in the title or in the headings, the last as a prefix', () => {
    const request = parseSuggestRequest(new URLSearchParams({ q: ' Satz des Pyth ', share: 'schule' }));
    assert.deepEqual(request, { q: 'Satz des Pyth', share: 'schule', size: 8 });
    const body = suggestBody(request, viewer)!;
    const { must, ...permission } = body.query!.bool!;
    assert.deepEqual(permission, viewerFilter(viewer, { share: 'schule' }));
    const prefix = (field: string, boost: number) => ({ match_bool_prefix: { [field]: { query: 'Satz des Pyth', operator: 'and', boost } } });
    assert.deepEqual(must, [{ bool: { should: [prefix('title', 2), prefix('headings', 1)], minimum_should_match: 1 } }]);
    assert.equal(body.size, 8);
    assert.equal(suggestBody(request, nobody), null);
    assert.equal(suggestBody({ ...request, share: 'elsewhere' }, viewer), null, 'a share the viewer does not see');
  });

  it('builds nothing for a viewer without allow SIDs', () => {
    assert.equal(searchBodyJson(parseSearchRequest({ q: 'x' }), nobody), null);
    assert.equal(buildPageListBody('schule', '', nobody), null);
    assert.equal(buildRootsBody(nobody), null);
  });

  it('lists pages of one folder and groups roots by share and folder under the same filter', () => {
    const pages = buildPageListBody('schule', 'Lehrerzimmer', viewer)!;
    assert.deepEqual((pages.query!.bool!.filter as unknown[])[2], { term: { folder_key: 'lehrerzimmer' } });
    assert.deepEqual(pages.query!.bool!.must_not, [{ terms: { acl_deny: viewer.denySids } }]);
    const roots = buildRootsBody(viewer, { share: 'schule', folder: 'A' })!;
    assert.deepEqual(roots.query, { bool: viewerFilter(viewer) });
    assert.deepEqual(roots.aggs!['roots']!.composite!.after, { share: 'schule', folder: 'A' });
  });
});
