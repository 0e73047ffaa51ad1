// The ranking figures of the relevance bench (bench/relevance/metrics.ts), on answers worked out by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bestWithin, dcgAt, mean, ndcgAt, precisionAt, recallAt, reciprocalRankAt } from '../../../bench/relevance/metrics.js';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} is not ${expected}`);

describe('relevance metrics', () => {
  it('DCG: gain 2^grade − 1, discounted by log2 of the rank + 1, cut at k', () => {
    // 7/1 + 3/log2(3) + 0/2 + 1/log2(5) = 7 + 1.892789 + 0 + 0.430677
    close(dcgAt([3, 2, 0, 1], 4), 9.323466);
    close(dcgAt([3, 2, 0, 1], 1), 7);
    assert.equal(dcgAt([], 10), 0);
  });

  it('nDCG: 1 for the ideal order, less when the best page comes second, 0 when nothing is relevant', () => {
    close(ndcgAt([3, 2, 1], [1, 2, 3], 10), 1);
    // 7/log2(3) over 7
    close(ndcgAt([0, 3], [3], 10), 1 / Math.log2(3));
    // Two relevant pages, one found at rank 1: 7 over 7 + 3/log2(3)
    close(ndcgAt([3, 0], [3, 2], 10), 7 / (7 + 3 / Math.log2(3)));
    assert.equal(ndcgAt([0, 0], [], 10), 0);
    assert.equal(ndcgAt([], [3], 10), 0);
  });

  it('nDCG counts only the first k hits, of the answer and of the ideal', () => {
    // The ideal's first 1: 7; the answer's first 1: 0.
    assert.equal(ndcgAt([0, 3], [3, 3], 1), 0);
  });

  it('precision@k: relevant hits over k places, empty places count as misses', () => {
    close(precisionAt([1, 0, 2], 10), 0.2);
    close(precisionAt([1, 0, 2, 3], 2), 0.5);
    assert.equal(precisionAt([], 10), 0);
  });

  it('recall@k: relevant hits among the first k over all relevant pages', () => {
    close(recallAt([1, 0, 2], [3, 2, 1, 1], 10), 0.5);
    close(recallAt([0, 0, 3], [3], 2), 0);
    assert.equal(recallAt([1], [], 10), 0);
  });

  it('reciprocal rank: 1 / the rank of the first relevant hit within k, else 0', () => {
    close(reciprocalRankAt([0, 0, 2], 10), 1 / 3);
    assert.equal(reciprocalRankAt([1, 3], 10), 1);
    assert.equal(reciprocalRankAt([0, 0, 2], 2), 0);
    assert.equal(reciprocalRankAt([], 10), 0);
  });

  it('must check: a page of the best judged grade within the first n hits', () => {
    assert.equal(bestWithin([2, 1, 0, 3], [3, 2, 1], 3), false);
    assert.equal(bestWithin([2, 1, 0, 3], [3, 2, 1], 4), true);
    assert.equal(bestWithin([0, 0], [], 3), false);
  });

  it('mean of none is 0', () => {
    assert.equal(mean([]), 0);
    close(mean([1, 0, 0.5]), 0.5);
  });
});
