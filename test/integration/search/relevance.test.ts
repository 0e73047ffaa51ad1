// The relevance suite on the testbed: the shipped analyzer (german) against standard, the typo rule's limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSearchRequest } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { FOUND_BY_TYPO_RULE, RELEVANCE_QUERIES } from './relevance-corpus.js';
import { describeOutcome, indexRelevancePages, measureRelevance, RELEVANCE_VIEWER, type RelevanceRun } from './relevance.js';
import { scratchIndex, type ScratchIndex } from './scratch-index.js';

describe('relevance of German queries', () => {
  let es: ScratchIndex;
  const runs = new Map<string, RelevanceRun>();
  before(async () => {
    es = await scratchIndex('relevance');
    for (const analyzer of ['german', 'standard'] as const) {
      await indexRelevancePages(es.client, `${es.alias}-${analyzer}`, analyzer);
      runs.set(analyzer, await measureRelevance(es.client, `${es.alias}-${analyzer}`, analyzer));
    }
  });
  after(() => es.drop());

  it('judges at least 60 queries of every kind', () => {
    assert.ok(RELEVANCE_QUERIES.length >= 60, `${RELEVANCE_QUERIES.length} queries`);
    assert.deepEqual([...runs.get('german')!.byKind.keys()].sort(), ['compound', 'inflection', 'sharp-s', 'title-body', 'typo', 'umlaut', 'words']);
  });

  it('german: recall@10 at least 0.9 and every must query in the top 3', () => {
    const german = runs.get('german')!;
    const missed = german.outcomes.filter((o) => o.ranks.includes(null)).map(describeOutcome);
    assert.ok(german.recallAt10 >= 0.9, `recall@10 ${german.recallAt10.toFixed(3)}; missed: ${missed.join('; ')}`);
    assert.deepEqual(german.mustMissed.map(describeOutcome), []);
  });

  it('standard, the analyzer of a cluster without german, finds less and misses must queries', () => {
    const [german, standard] = [runs.get('german')!, runs.get('standard')!];
    assert.ok(standard.recallAt10 < german.recallAt10, `standard ${standard.recallAt10.toFixed(3)} vs german ${german.recallAt10.toFixed(3)}`);
    assert.ok(standard.mustMissed.length > 0);
  });

  it('says which answers come from the typo rule: the typo queries and the stemmer\'s known gaps, no others', () => {
    for (const outcome of runs.get('german')!.outcomes) {
      assert.equal(outcome.corrected, outcome.query.kind === 'typo' || FOUND_BY_TYPO_RULE.has(outcome.query.q), describeOutcome(outcome));
    }
  });

  it('corrects no word under 4 letters, and corrects under the same permission filter', async () => {
    const search = new WikiSearch({ client: es.client, alias: `${es.alias}-german` });
    const ask = (q: string, viewer = RELEVANCE_VIEWER) => search.search(parseSearchRequest({ q }), viewer);
    assert.deepEqual(await ask('Aul'), { total: 0, hits: [] }, 'Aula is one letter away, but a 3-letter word is taken as typed');
    assert.equal((await ask('Aulx')).corrected, true, '4 letters: one changed letter');
    assert.equal((await ask('Aulxy')).total, 0, '5 letters: not two');
    const stranger = { ...RELEVANCE_VIEWER, allowSids: ['S-1-5-21-1-2-3-4000'] };
    assert.deepEqual(await ask('Bruchrechung', stranger), { total: 0, hits: [] });
    const denied = { ...RELEVANCE_VIEWER, denySids: [...RELEVANCE_VIEWER.allowSids] };
    assert.equal((await ask('Bruchrechnung', denied)).total, 1, 'pages with no deny entry stay visible');
  });
});
