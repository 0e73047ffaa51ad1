/**
 * Measures the relevance corpus on an Elasticsearch: the pages written into an index of their own with the wiki's
 * settings and mapping on one analyzer (src/search/mapping.ts) by the service's own writer, each judged query
 * searched as the service searches POST /wiki/search (WikiSearch, the typo rule included), each prefix as it
 * suggests (WikiSearch.suggest), and the answers scored against the judgments.
 */
import type { Client } from '@elastic/elasticsearch';
import { silentLog } from '../../src/common/logger.js';
import { documentSource } from '../../src/indexing/indexer/bulk.js';
import { bulkWriterOn } from '../../src/indexing/indexer/write-batch.js';
import { IndexWriter } from '../../src/indexing/reconciler/index-writer.js';
import { indexMappings, indexSettings, type TextAnalyzer } from '../../src/search/mapping.js';
import { parseSearchRequest, parseSuggestRequest, type Viewer } from '../../src/search/query.js';
import { WikiSearch } from '../../src/search/search.js';
import { EVERYONE_SID } from '../../src/wiki/acl.js';
import { buildWikiDocument } from '../../src/wiki/document.js';
import type { CorpusPage, PageRole } from './corpus.js';
import { gradeOf, type JudgedQuery } from './judgments.js';
import { bestWithin, mean, ndcgAt, precisionAt, recallAt, reciprocalRankAt } from './metrics.js';
import type { SuggestionPrefix } from './prefixes.js';

export const SHARE = 'relevanz';
/** The pages carry no DACL, which lets everyone read: permissions play no part in the ranking. */
export const CORPUS_VIEWER: Viewer = { allowSids: [EVERYONE_SID], denySids: [EVERYONE_SID], shares: [SHARE] };
export const TOP = 10;
export const MUST_WITHIN = 3;
export const SUGGESTIONS_JUDGED = 5;

/** Creates `index` with the wiki's settings and mapping on `analyzer` and writes the corpus into it. */
export async function indexCorpus(client: Client, index: string, analyzer: TextAnalyzer, corpus: readonly CorpusPage[]): Promise<void> {
  await client.indices.create({ index, settings: indexSettings(), mappings: indexMappings(analyzer) });
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { index }, log: silentLog });
  for (const page of corpus) {
    const content = Buffer.from(page.markdown, 'utf8');
    const doc = buildWikiDocument({
      server: 'dc1', share: SHARE, path: page.path, content, size: content.length, modified: new Date(Date.UTC(2026, 0, 1)),
      // A page everyone may read, as one without a DACL.
      acl: { allow: [EVERYONE_SID], deny: [] },
    });
    await writer.upsert(doc.id, JSON.stringify(documentSource(doc)));
  }
  await writer.flush();
  if (writer.counts.rejected > 0) throw new Error(`${writer.counts.rejected} corpus pages rejected`);
  await client.indices.refresh({ index });
}

export interface RankingFigures {
  queries: number;
  ndcg: number;
  precision: number;
  recall: number;
  mrr: number;
}

export interface QueryOutcome {
  query: JudgedQuery;
  /** The grades of the first 10 hits, in order. */
  ranked: number[];
  ndcg: number;
  /** For a must query: whether a page of its best grade is in the top 3. */
  mustMet: boolean;
  corrected: boolean;
  /**
   * The relevant pages not among the hits of an answer that had every page matching the query (10 or fewer): pages
   * the service's query does not match at all, by role.
   */
  unmatched: Record<PageRole, number>;
  /** The relevant pages not in the first 10 of an answer with more matches: ranked below 10, or not matched at all. */
  outranked: number;
}

export interface RankingRun extends RankingFigures {
  analyzer: TextAnalyzer;
  outcomes: QueryOutcome[];
  byClass: Map<string, RankingFigures>;
  mustMissed: QueryOutcome[];
}

function figuresOf(outcomes: readonly QueryOutcome[], judgedOf: (o: QueryOutcome) => number[]): RankingFigures {
  return {
    queries: outcomes.length,
    ndcg: mean(outcomes.map((o) => o.ndcg)),
    precision: mean(outcomes.map((o) => precisionAt(o.ranked, TOP))),
    recall: mean(outcomes.map((o) => recallAt(o.ranked, judgedOf(o), TOP))),
    mrr: mean(outcomes.map((o) => reciprocalRankAt(o.ranked, TOP))),
  };
}

/** Searches every judged query in `index` (made by indexCorpus from `corpus`) and scores the answers. */
export async function measureRanking(
  client: Client, index: string, analyzer: TextAnalyzer, corpus: readonly CorpusPage[], queries: readonly JudgedQuery[],
): Promise<RankingRun> {
  const search = new WikiSearch({ client, alias: index });
  const byPath = new Map(corpus.map((page) => [page.path, page]));
  const relevantPages = new Map(queries.map((query) => [query, corpus.filter((page) => gradeOf(query, page) > 0)]));
  const judged = new Map(queries.map((query) => [query, relevantPages.get(query)!.map((page) => gradeOf(query, page))]));
  const outcomes: QueryOutcome[] = [];
  for (const query of queries) {
    const result = await search.search(parseSearchRequest({ q: query.q, size: TOP }), CORPUS_VIEWER);
    if (result.degraded) throw new Error(`Elasticsearch could not answer "${query.q}"`);
    const ranked = result.hits.map((hit) => gradeOf(query, byPath.get(hit.path)!));
    const all = judged.get(query)!;
    const shown = new Set(result.hits.map((hit) => hit.path));
    const absent = relevantPages.get(query)!.filter((page) => !shown.has(page.path));
    const complete = result.total <= result.hits.length;
    const unmatched: Record<PageRole, number> = { main: 0, aspect: 0, mention: 0, background: 0 };
    if (complete) for (const page of absent) unmatched[page.role]++;
    outcomes.push({
      query, ranked, ndcg: ndcgAt(ranked, all, TOP), mustMet: bestWithin(ranked, all, MUST_WITHIN), corrected: result.corrected === true,
      unmatched, outranked: complete ? 0 : absent.length,
    });
  }
  const judgedOf = (o: QueryOutcome) => judged.get(o.query)!;
  const classes = [...new Set(queries.map((query) => query.class))];
  return {
    analyzer,
    ...figuresOf(outcomes, judgedOf),
    outcomes,
    byClass: new Map(classes.map((c) => [c, figuresOf(outcomes.filter((o) => o.query.class === c), judgedOf)])),
    mustMissed: outcomes.filter((o) => o.query.must && !o.mustMet),
  };
}

export interface SuggestionRun {
  analyzer: TextAnalyzer;
  prefixes: number;
  /** Mean over the prefixes of the share of relevant suggestions among the first 5 shown (0 when none is shown). */
  precision: number;
  /** Prefixes for which nothing was suggested. */
  empty: SuggestionPrefix[];
}

/** Asks for suggestions to every prefix in `index`; a suggestion is relevant when its page is about the prefix's topic. */
export async function measureSuggestions(
  client: Client, index: string, analyzer: TextAnalyzer, corpus: readonly CorpusPage[], prefixes: readonly SuggestionPrefix[],
): Promise<SuggestionRun> {
  const search = new WikiSearch({ client, alias: index });
  const byPath = new Map(corpus.map((page) => [page.path, page]));
  const precisions: number[] = [];
  const empty: SuggestionPrefix[] = [];
  for (const prefix of prefixes) {
    const result = await search.suggest(parseSuggestRequest(new URLSearchParams({ q: prefix.q })), CORPUS_VIEWER);
    if (result.degraded) throw new Error(`Elasticsearch could not suggest for "${prefix.q}"`);
    const shown = result.suggestions.slice(0, SUGGESTIONS_JUDGED);
    if (shown.length === 0) empty.push(prefix);
    const about = (path: string) => {
      const page = byPath.get(path)!;
      return page.topic === prefix.topic && (page.role === 'main' || page.role === 'aspect');
    };
    precisions.push(shown.length === 0 ? 0 : shown.filter((s) => about(s.path)).length / shown.length);
  }
  return { analyzer, prefixes: prefixes.length, precision: mean(precisions), empty };
}

/** A query's outcome as a line: the query, its class, the grades of its first hits. */
export function describeOutcome(o: QueryOutcome): string {
  return `"${o.query.q}" (${o.query.class}): grades ${o.ranked.slice(0, 5).join(' ') || 'no hits'}, nDCG ${o.ndcg.toFixed(2)}${o.corrected ? ', corrected' : ''}`;
}
