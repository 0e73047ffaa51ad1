/**
 * What counting every match for a search's `total` costs Elasticsearch as the wiki grows, and breaking ties of equal
 * score by page (issue 44: search p99 at 500,000 pages at most 1.5 × its value at 50,000), and so why the search
 * counts up to COUNTED_MATCHES and sorts by score alone:
 *   node dist/bench/search/count-cost.js     (COUNTCOST_SIZES, default 50000,500000; COUNTCOST_ROUNDS, default 60)
 * A scratch index, `bench-count-cost`, with the wiki's settings and mapping, grows through the sizes with the scale
 * bench's pages (its seed's Markdown, rendered as the indexer renders it), where the scale bench's queries match
 * nearly every page; it is refreshed at each size, not force-merged, as a live index is. There each query's
 * body, as searchBodyJson makes it, is sent changed per VARIANTS, timed by Elasticsearch's `took` (scratch-index.ts).
 * Needs the testbed's Elasticsearch; deletes the scratch index afterwards, also when it fails. Writes its section
 * "## Wiki search: what counting every match costs" with no summary rows: the scale bench has the target.
 */
import type { estypes } from '@elastic/elasticsearch';
import { indexMappings, indexSettings } from '../../src/search/mapping.js';
import { COUNTED_MATCHES, parseSearchRequest, searchBodyJson, type Viewer } from '../../src/search/query.js';
import { EVERYONE_SID } from '../../src/wiki/acl.js';
import { markdownToText } from '../../src/wiki/document.js';
import { folderKey } from '../../src/wiki/document-id.js';
import { folderAncestry } from '../../src/wiki/layout.js';
import { markdownPage } from '../../test/integration/reconcile/markdown.js';
import { pageSize } from '../index/seed.js';
import { runAlone, runLine } from '../results.js';
import { QUERIES } from '../scale/search-latency.js';
import { percentile } from '../stats.js';
import { count, matchedCell, scratchBenchmark, tookCell, type PageSource, type SizeRun } from './scratch-index.js';

const HEADING = '## Wiki search: what counting every match costs';
const SCRIPT = 'dist/bench/search/count-cost.js';
const INDEX = 'bench-count-cost';
const SHARE = 'schule';
/** The pages deny no one: the permission filter is in the body as in every search, and decides nothing here. */
const VIEWER: Viewer = { allowSids: [EVERYONE_SID], denySids: [EVERYONE_SID], shares: [SHARE] };
/** Pages per folder, as the scale bench seeds them. */
const PAGES_PER_FOLDER = 100;

/** The scale bench's pages one after another: page n is its seed's page n, rendered as the indexer renders it. */
class ScalePages implements PageSource {
  made = 0;

  next(): { id: string; source: string } {
    const n = this.made++;
    const { title, headings, body } = markdownToText(markdownPage(n, pageSize(n)));
    const folder = `Klasse-${String(Math.floor(n / PAGES_PER_FOLDER)).padStart(4, '0')}`;
    const path = `${folder}/.wiki/p${n}.md`;
    return {
      id: path,
      source: JSON.stringify({
        server: 'dc1', share: SHARE, folder, folder_key: folderKey(folder), folder_ancestors: folderAncestry(folderKey(folder)), page: `p${n}`, path,
        is_start_page: false, title: title ?? '', headings, body, acl_allow: [EVERYONE_SID], acl_deny: [],
      }),
    };
  }
}

/** The parts of searchBodyJson's body that the variants change. */
export interface SearchBody {
  track_total_hits?: boolean | number;
  sort?: estypes.Sort;
}

/** The sort before this bench: best first, pages of equal score by share and path. */
const TIES_BY_PAGE: estypes.Sort = ['_score', { share: 'asc' }, { path: 'asc' }];

const VARIANTS = {
  before: {
    name: 'every match counted, ties by share and path (before)',
    change: (body: SearchBody) => { body.track_total_hits = true; body.sort = TIES_BY_PAGE; },
  },
  tiesByPage: { name: `counted up to ${count(COUNTED_MATCHES)}, ties by share and path`, change: (body: SearchBody) => { body.sort = TIES_BY_PAGE; } },
  everyMatch: { name: 'every match counted, by score alone', change: (body: SearchBody) => { body.track_total_hits = true; } },
  shipped: { name: `counted up to ${count(COUNTED_MATCHES)}, by score alone (shipped)`, change: () => undefined },
} satisfies Record<string, { name: string; change(body: SearchBody): void }>;

export type VariantKey = keyof typeof VARIANTS;
const VARIANT_KEYS = Object.keys(VARIANTS) as VariantKey[];

/** The body searchBodyJson makes for `q`, changed as the variant `key` says. */
export function variantBody(key: VariantKey, q: string): SearchBody {
  const body = JSON.parse(searchBodyJson(parseSearchRequest({ q }), VIEWER)!) as SearchBody;
  VARIANTS[key].change(body);
  return body;
}

/** The share of the pages the queries matched, on average (counted by the variant that counts every match). */
const matchedShare = (run: SizeRun<VariantKey>): number => run.figures.before.hits.reduce((sum, hits) => sum + hits.value, 0) / run.figures.before.hits.length / run.pages;

const p99 = (run: SizeRun<VariantKey>, key: VariantKey): number => percentile([...run.figures[key].took].sort((a, b) => a - b), 0.99);

function sectionLines(load: string, runs: SizeRun<VariantKey>[], roundCount: number): string[] {
  const first = runs[0]!;
  const last = runs.at(-1)!;
  const growth = runs.length < 2 ? [] : [
    `| p99 at ${count(last.pages)} against ${count(first.pages)} pages | ${VARIANT_KEYS.map((key) => `${(p99(last, key) / p99(first, key)).toFixed(2)} ×`).join(' | ')} |`,
  ];
  return [
    runLine(SCRIPT, load),
    '',
    `The search answers \`total\`; how many matches it counts, and how it orders pages of equal score, decide whether Elasticsearch may skip pages that cannot reach the top hits. A scratch index, \`${INDEX}\`, with the wiki's settings and mapping (\`german\`), filled with the scale bench's pages (its seed's Markdown of 1 to 20 KiB, rendered as the indexer renders it, ${PAGES_PER_FOLDER} to a folder), where its ${QUERIES.length} queries match ${(100 * matchedShare(last)).toFixed(0)} % of the pages on average (below); grown to ${runs.map((run) => `${count(run.pages)} pages (${run.megabytes.toFixed(0)} MB, ${run.segments} segments)`).join(', then ')}, refreshed at each size and not force-merged, as a live index. At each size ${roundCount} rounds of the queries after one warm-up search each: the body \`searchBodyJson\` makes (size 10, one viewer, one share), changed per variant, a query's variants in random order each round; figures are Elasticsearch's \`took\` over all ${count(roundCount * QUERIES.length)} searches of a variant. \`COUNTCOST_SIZES=${runs.map((run) => run.pages).join(',')} COUNTCOST_ROUNDS=${roundCount}\` (the defaults: 50000,500000 and 60).`,
    '',
    `| pages | ${VARIANT_KEYS.map((key) => VARIANTS[key].name).join(' | ')} |`,
    `|---|${VARIANT_KEYS.map(() => '---').join('|')}|`,
    ...runs.map((run) => `| ${count(run.pages)}: took p50 / p99 / mean, ms | ${VARIANT_KEYS.map((key) => tookCell(run.figures[key].took)).join(' | ')} |`),
    ...growth,
    '',
    `Pages matched per query (\`hits.total\`; \`+\`: Elasticsearch stopped counting), at ${runs.map((run) => count(run.pages)).join(' / ')} pages: ${QUERIES.map((q, i) => `\`${q}\` ${runs.map((run) => matchedCell(run.figures.before.hits[i]!)).join(' / ')}`).join(', ')}. Counted up to ${count(COUNTED_MATCHES)}, each says \`${count(COUNTED_MATCHES)}+\`.`,
    '',
    `Counting every match visits every page that has a word of the query; a tie-break on a field keeps Elasticsearch from raising the lowest score that can still reach the top hits past the scores of the ties. With both, the search grows with the wiki; counted up to ${count(COUNTED_MATCHES)} (as far as paging reaches) and sorted by score alone, Elasticsearch skips the pages that cannot reach the top. So the service counts up to ${count(COUNTED_MATCHES)}, says \`total_at_least\` beyond it, and sorts by score alone, with a \`preference\` per query so that the same copies of the index answer each page of hits (README, Searching German text).`,
  ];
}

export const countCostBench = scratchBenchmark({
  name: 'search count cost',
  script: SCRIPT,
  heading: HEADING,
  index: INDEX,
  settings: indexSettings(),
  mappings: indexMappings('german'),
  envPrefix: 'COUNTCOST',
  defaultSizes: '50000,500000',
  defaultRounds: 60,
  pages: () => new ScalePages(),
  bodies: () => QUERIES.map((q) => new Map(VARIANT_KEYS.map((key) => [key, JSON.stringify(variantBody(key, q))]))),
  section: sectionLines,
});

await runAlone(import.meta.url, countCostBench);
