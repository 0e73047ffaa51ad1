// The clause-cost bench (bench/search/clause-cost.ts) derives its variants from the body the service makes: they must
// stay the queries its table names, the one before issue 44 and the leading wildcard of 71ab147 (its unit test's
// clauses), whatever src/search/query.ts does meanwhile.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { estypes } from '@elastic/elasticsearch';
import { variantBody, type SearchBody } from '../../../bench/search/clause-cost.js';

const wordClauses = (body: SearchBody) => body.query.bool.must[0]!.bool!.should as estypes.QueryDslQueryContainer[];

describe('clause-cost bench variants', () => {
  it('asks before issue 44 as it was: every word required, no compound clause, the whole query highlighted', () => {
    const body = variantBody('before', 'Prüfung Zeugnis');
    assert.deepEqual(body.query.bool.must, [
      { multi_match: { query: 'Prüfung Zeugnis', fields: ['title^3', 'headings^2', 'body'], type: 'cross_fields', operator: 'and' } },
    ]);
    assert.equal(body.highlight!.highlight_query, undefined);
  });

  it('adds the leading wildcard of 71ab147 for each word looked for as the start of a title word, and only there', () => {
    const shipped = wordClauses(variantBody('shipped', 'Prüfung Zeugnis AG'));
    const ends = wordClauses(variantBody('endsMarkedHighlight', 'Prüfung Zeugnis AG'));
    assert.deepEqual(ends, [
      ...shipped,
      { wildcard: { 'title.unstemmed': { value: '*prüfung', boost: 3 } } },
      { wildcard: { 'title.unstemmed': { value: '*zeugnis', boost: 3 } } },
    ]);
    assert.deepEqual(variantBody('endsMarkedHighlight', 'Prüfung').highlight, variantBody('shipped', 'Prüfung').highlight);
    assert.equal(variantBody('endsWholeHighlight', 'Prüfung').highlight!.highlight_query, undefined);
  });

  it('searches the wildcards alone without highlighting', () => {
    const body = variantBody('endsAlone', 'Prüfung Zeugnis');
    assert.deepEqual(wordClauses(body).map((clause) => Object.keys(clause)), [['wildcard'], ['wildcard']]);
    assert.equal(body.highlight, undefined);
  });
});
