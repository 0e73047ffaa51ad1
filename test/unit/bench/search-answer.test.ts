// What the search benches count as a search answered as asked (bench/search/answer.ts, and search.lua for wrk). At
// 72dab2a a 200 with `degraded: true` (Elasticsearch failing, empty lists) counted as a fast search.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchAnswerProblem, wrkAnswers } from '../../../bench/search/answer.js';

describe('search answers', () => {
  it('takes a 200 with hits as the answer asked for', () => {
    assert.equal(searchAnswerProblem(200, '{"hits":[{"title":"Elternabend"}],"total":1}'), undefined);
  });

  it('counts a degraded 200 and any other status', () => {
    assert.equal(searchAnswerProblem(200, '{"hits":[],"total":0,"degraded":true}'), 'degraded');
    assert.equal(searchAnswerProblem(503, '{"error":"unavailable"}'), 'status 503');
  });

  it('does not take the words inside a hit for the key', () => {
    assert.equal(searchAnswerProblem(200, '{"hits":[{"snippet":"set \\"degraded\\":true in the log"}],"total":1}'), undefined);
  });

  it('counts wrk rounds\' degraded answers as unexpected and as no throughput', () => {
    const round = { requests: 1000, duration_us: 1e6, non2xx: 10, degraded: 40, socket_errors: 2, p50_us: 900, p99_us: 4000 };
    const { unexpected, answered } = wrkAnswers('service', round);
    assert.equal(unexpected.toString(), 'service: status ≥ 400 ×10, degraded ×40, socket error ×2');
    assert.equal(answered, 950);
  });
});
