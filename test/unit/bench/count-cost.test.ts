// The count-cost bench (bench/search/count-cost.ts) derives its variants from the body the service makes: each must
// change only how many matches are counted and how ties are ordered, whatever src/search/query.ts does meanwhile.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { variantBody } from '../../../bench/search/count-cost.js';

const TIES_BY_PAGE = ['_score', { share: 'asc' }, { path: 'asc' }];

describe('count-cost bench variants', () => {
  it('ships the count bounded by the paging window, sorted by score alone', () => {
    const shipped = variantBody('shipped', 'Prüfung Zeugnis');
    assert.equal(shipped.track_total_hits, 10_000);
    assert.equal(shipped.sort, undefined);
  });

  it('changes only the count and the tie-break in the other variants', () => {
    const shipped = variantBody('shipped', 'Prüfung Zeugnis');
    assert.deepEqual(variantBody('before', 'Prüfung Zeugnis'), { ...shipped, track_total_hits: true, sort: TIES_BY_PAGE });
    assert.deepEqual(variantBody('tiesByPage', 'Prüfung Zeugnis'), { ...shipped, sort: TIES_BY_PAGE });
    assert.deepEqual(variantBody('everyMatch', 'Prüfung Zeugnis'), { ...shipped, track_total_hits: true });
  });
});
