/**
 * Measures the relevance suite (relevance-corpus.ts) on the testbed's Elasticsearch: the pages indexed into an index
 * of their own per analyzer, each judged query searched as the service searches (WikiSearch, typo rule included),
 * recall@10 and mean reciprocal rank computed from the ranks of the judged pages.
 */
import type { Client } from '@elastic/elasticsearch';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { IndexWriter } from '../../../src/indexing/reconciler/index-writer.js';
import { documentSource } from '../../../src/indexing/indexer/bulk.js';
import { silentLog } from '../../../src/common/logger.js';
import { indexMappings, indexSettings, type TextAnalyzer } from '../../../src/search/mapping.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { EVERYONE_SID } from '../../../src/wiki/acl.js';
import { buildWikiDocument } from '../../../src/wiki/document.js';
import { RELEVANCE_PAGES, RELEVANCE_QUERIES, type JudgedQuery, type QueryKind } from './relevance-corpus.js';

const SHARE = 'relevanz';
/** The pages carry no DACL, which lets everyone read: permissions play no part in this suite. */
export const RELEVANCE_VIEWER: Viewer = { allowSids: [EVERYONE_SID], denySids: [EVERYONE_SID], shares: [SHARE] };
const TOP = 10;
const MUST_WITHIN = 3;

export interface QueryOutcome {
  query: JudgedQuery;
  /** 1-based rank in the top 10 of each relevant page, null when it is not there. */
  ranks: (number | null)[];
  corrected: boolean;
}

export interface RelevanceFigures {
  queries: number;
  recallAt10: number;
  mrr: number;
}

export interface RelevanceRun extends RelevanceFigures {
  analyzer: TextAnalyzer;
  outcomes: QueryOutcome[];
  byKind: Map<QueryKind, RelevanceFigures>;
  /** Queries marked `must` whose first relevant page is not in the top 3. */
  mustMissed: QueryOutcome[];
}

/** Creates `index` with the wiki mapping on `analyzer` and writes the suite's pages into it. */
export async function indexRelevancePages(client: Client, index: string, analyzer: TextAnalyzer): Promise<void> {
  await client.indices.create({ index, settings: indexSettings(), mappings: indexMappings(analyzer) });
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { index }, log: silentLog });
  for (const [path, markdown] of Object.entries(RELEVANCE_PAGES)) {
    const content = Buffer.from(markdown, 'utf8');
    const doc = buildWikiDocument({
      server: 'dc1', share: SHARE, path, content, size: content.length, modified: new Date(Date.UTC(2026, 0, 1)),
      securityDescriptor: { revision: 1, control: 0x8000, owner: null, group: null, dacl: null, sacl: null },
    });
    await writer.upsert(doc.id, JSON.stringify(documentSource(doc)));
  }
  await writer.flush();
  if (writer.counts.rejected > 0) throw new Error(`${writer.counts.rejected} relevance pages rejected`);
  await client.indices.refresh({ index });
}

function figures(outcomes: QueryOutcome[]): RelevanceFigures {
  const recall = (o: QueryOutcome) => o.ranks.filter((rank) => rank !== null).length / o.ranks.length;
  const reciprocal = (o: QueryOutcome) => {
    const found = o.ranks.filter((rank) => rank !== null);
    return found.length === 0 ? 0 : 1 / Math.min(...found);
  };
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return { queries: outcomes.length, recallAt10: mean(outcomes.map(recall)), mrr: mean(outcomes.map(reciprocal)) };
}

/** Searches every judged query in `index` (made by indexRelevancePages) and scores the answers. */
export async function measureRelevance(client: Client, index: string, analyzer: TextAnalyzer): Promise<RelevanceRun> {
  const search = new WikiSearch({ client, alias: index });
  const outcomes: QueryOutcome[] = [];
  for (const query of RELEVANCE_QUERIES) {
    const result = await search.search(parseSearchRequest({ q: query.q, size: TOP }), RELEVANCE_VIEWER);
    if (result.degraded) throw new Error(`Elasticsearch could not answer "${query.q}"`);
    const paths = result.hits.map((hit) => hit.path);
    outcomes.push({
      query,
      ranks: query.relevant.map((path) => (paths.includes(path) ? paths.indexOf(path) + 1 : null)),
      corrected: result.corrected === true,
    });
  }
  const kinds = [...new Set(RELEVANCE_QUERIES.map((query) => query.kind))];
  return {
    analyzer,
    ...figures(outcomes),
    outcomes,
    byKind: new Map(kinds.map((kind) => [kind, figures(outcomes.filter((o) => o.query.kind === kind))])),
    mustMissed: outcomes.filter((o) => o.query.must && (o.ranks[0] === null || o.ranks[0]! > MUST_WITHIN)),
  };
}

/** A missed query as a line: the query, its kind and where its relevant pages ranked. */
export function describeOutcome(o: QueryOutcome): string {
  return `"${o.query.q}" (${o.query.kind}): ranks ${o.ranks.map((rank) => rank ?? '–').join(', ')}${o.corrected ? ', corrected' : ''}`;
}
