// The relevance corpus (bench/relevance) on the testbed: the shipped analyzer (german) against standard, and the
// typo rule's limits. The figures and their target (nDCG@10 ≥ 0.85) are the bench's (bench/search/relevance.ts,
// bench/RESULTS.md); this test holds what must not get worse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateCorpus } from '../../../bench/relevance/corpus.js';
import { readQueries } from '../../../bench/relevance/judgments.js';
import { CORPUS_VIEWER, describeOutcome, indexCorpus, measureRanking, type RankingRun } from '../../../bench/relevance/measure.js';
import { parseSearchRequest } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { scratchIndex, type ScratchIndex } from './scratch-index.js';

describe('relevance of German queries on the generated corpus', () => {
  let es: ScratchIndex;
  const runs = new Map<string, RankingRun>();
  before(async () => {
    es = await scratchIndex('relevance');
    const corpus = generateCorpus();
    const queries = readQueries();
    for (const analyzer of ['german', 'standard'] as const) {
      await indexCorpus(es.client, `${es.alias}-${analyzer}`, analyzer, corpus);
      runs.set(analyzer, await measureRanking(es.client, `${es.alias}-${analyzer}`, analyzer, corpus, queries));
    }
  });
  after(() => es.drop());

  it('german ranks better than standard and misses fewer must queries', () => {
    const [german, standard] = [runs.get('german')!, runs.get('standard')!];
    assert.ok(german.ndcg > standard.ndcg, `nDCG@10 german ${german.ndcg.toFixed(3)} vs standard ${standard.ndcg.toFixed(3)}`);
    assert.ok(german.mustMissed.length < standard.mustMissed.length, german.mustMissed.map(describeOutcome).join('; '));
  });

  it('german finds every title as written, in ae/oe/ue and with a typo: its page first', () => {
    const german = runs.get('german')!;
    const missed = german.outcomes.filter((o) => ['as-written', 'typo', 'umlaut-plain'].includes(o.query.class) && o.ranked[0] !== 3);
    assert.deepEqual(missed.map(describeOutcome), []);
  });

  it('corrects no word under 4 letters, and corrects under the same permission filter', async () => {
    const search = new WikiSearch({ client: es.client, alias: `${es.alias}-german` });
    const ask = (q: string, viewer = CORPUS_VIEWER) => search.search(parseSearchRequest({ q }), viewer);
    assert.deepEqual(await ask('Aul'), { total: 0, hits: [] }, 'Aula is one letter away, but a 3-letter word is taken as typed');
    assert.equal((await ask('Aulx')).corrected, true, '4 letters: one changed letter');
    assert.equal((await ask('Aulxy')).total, 0, '5 letters: not two');
    const stranger = { ...CORPUS_VIEWER, allowSids: ['S-1-5-21-1-2-3-4000'] };
    assert.deepEqual(await ask('Bruchrechung', stranger), { total: 0, hits: [] });
    const denied = { ...CORPUS_VIEWER, denySids: [...CORPUS_VIEWER.allowSids] };
    assert.equal((await ask('Bruchrechnung', denied)).total, (await ask('Bruchrechnung')).total, 'pages with no deny entry stay visible');
  });
});
