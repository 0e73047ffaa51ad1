/**
 * What the clauses with which the wiki search looks for closed compounds cost Elasticsearch (issue 44), and so why it
 * no longer looks for a word as the end of a title word (commit 79fbe2c); and, beside them, what counting every match
 * for `total` costs against counting up to COUNTED_UP_TO:
 *   node dist/bench/search/clause-cost.js     (CLAUSECOST_SIZES, default 50000,200000; CLAUSECOST_ROUNDS, default 60)
 * A scratch index, `bench-clause-cost`, with the wiki's settings and mapping (`german`) and the title's subfield that
 * the dropped clause searched, grows through the sizes with synthetic pages (ScratchPages) and is force-merged to one
 * segment at each. There each query's body, as searchBodyJson makes it, is sent changed per VARIANTS, a query's
 * variants in random order each round, and Elasticsearch's `took` of every search is kept. Needs the testbed's
 * Elasticsearch; deletes the scratch index afterwards, also when it fails. Writes its section "## Wiki search: what
 * the compound clauses cost" with no summary rows: it explains a cost and has no target of its own (search at scale
 * has its targets in the scale bench).
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { silentLog } from '../../src/common/logger.js';
import { bulkWriterOn } from '../../src/indexing/indexer/write-batch.js';
import { IndexWriter } from '../../src/indexing/reconciler/index-writer.js';
import { createSearchClient } from '../../src/search/client.js';
import { indexMappings, indexSettings } from '../../src/search/mapping.js';
import { parseSearchRequest, searchBodyJson, type Viewer } from '../../src/search/query.js';
import { describeSearchError } from '../../src/search/search-failure.js';
import { EVERYONE_SID } from '../../src/wiki/acl.js';
import { seededRandom } from '../../test/integration/search/seeded-random.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { loadAverage, report, runAlone, runLine, type BenchReport, type Benchmark } from '../results.js';
import { QUERIES as SCALE_QUERIES } from '../scale/search-latency.js';
import { mean } from '../relevance/metrics.js';
import { percentile } from '../stats.js';
import { textGenerator } from './run.js';

const HEADING = '## Wiki search: what the compound clauses cost';
const SCRIPT = 'dist/bench/search/clause-cost.js';
const INDEX = 'bench-clause-cost';
const SHARE = 'schule';
/** The pages deny no one: the permission filter is in the body as in every search, and decides nothing here. */
const VIEWER: Viewer = { allowSids: [EVERYONE_SID], denySids: [EVERYONE_SID], shares: [SHARE] };
/** The scale bench's queries, then words made of the pages' syllables. */
const QUERIES = [...SCALE_QUERIES, 'Zeugnis', 'Prüfung Zeugnis', 'Sportfest', 'Elternabend Übung', 'Pausenhof'];
const HITS_PER_PAGE = 10;

/** The pages are those of the scratch runs behind commit 79fbe2c (seed, shape and words), so the figures compare. */
const SEED = 7;
const TITLE_WORDS = 3;
const HEADING_WORDS = 3;
const BODY_WORDS = 250;
/** German stop words (`german` drops them), for the function words of a text. */
const STOP_WORDS = ['der', 'die', 'und', 'mit'];
const STOP_WORD_SHARE = 0.35;
/** A word of the scale bench's queries, on some pages' bodies. */
const TOPIC = 'Elternabend';
const TOPIC_SHARE = 0.05;
const BATCH = 2_000;

/**
 * The title's subfield of commit 71ab147, where the dropped clause looked for the ends of title words: the words only
 * lowercased (the stemmed title's term of `Fußballturnier` is `fussballturni`), matched for a yes or no.
 */
const UNSTEMMED = 'unstemmed';

function scratchMappings(): estypes.MappingTypeMapping {
  const mappings = indexMappings('german');
  const title = mappings.properties!['title'] as estypes.MappingTextProperty;
  mappings.properties!['title'] = { ...title, fields: { [UNSTEMMED]: { type: 'text', analyzer: 'standard', index_options: 'docs', norms: false } } };
  return mappings;
}

/** CLAUSECOST_SIZES: ascending page counts, the index grown from one to the next. */
function sizes(): number[] {
  const spelled = process.env['CLAUSECOST_SIZES'] ?? '50000,200000';
  const pages = spelled.split(',').map(Number);
  if (pages.some((n, i) => !Number.isInteger(n) || n <= 0 || (i > 0 && n <= pages[i - 1]!))) {
    throw new Error(`CLAUSECOST_SIZES: '${spelled}' is not ascending page counts`);
  }
  return pages;
}

/** CLAUSECOST_ROUNDS: how often each query's variants are searched at each size. */
function rounds(): number {
  const spelled = process.env['CLAUSECOST_ROUNDS'] ?? '60';
  const n = Number(spelled);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`CLAUSECOST_ROUNDS: '${spelled}' is not a positive whole number`);
  return n;
}

/**
 * The synthetic pages one after another, page n the same in every run: titles of TITLE_WORDS and bodies of BODY_WORDS
 * words of the search bench's syllables. Counts the distinct title words as UNSTEMMED indexes them.
 */
class ScratchPages {
  made = 0;
  private readonly random = seededRandom(SEED);
  private readonly text = textGenerator(this.random);
  private readonly titleWords = new Set<string>();

  get distinctTitleWords(): number {
    return this.titleWords.size;
  }

  next(): { id: string; source: string } {
    const { word, pick } = this.text;
    const body = Array.from({ length: BODY_WORDS }, () => (this.random() < STOP_WORD_SHARE ? pick(STOP_WORDS) : word())).join(' ')
      + (this.random() < TOPIC_SHARE ? ` ${TOPIC}` : '');
    const title = Array.from({ length: TITLE_WORDS }, word);
    const headings = Array.from({ length: HEADING_WORDS }, word);
    for (const w of title) this.titleWords.add(w.toLowerCase());
    const path = `p${this.made++}`;
    return {
      id: path,
      source: JSON.stringify({
        server: 'dc1', share: SHARE, folder: '', folder_key: '', page: path, path, title: title.join(' '), headings: headings.join('\n'), body,
        acl_allow: [EVERYONE_SID], acl_deny: [],
      }),
    };
  }
}

/** Adds pages until the index holds `size`, then makes them searchable as one segment. */
async function growTo(client: Client, pages: ScratchPages, size: number): Promise<void> {
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { index: INDEX }, maxOperations: BATCH, log: silentLog });
  while (pages.made < size) {
    const { id, source } = pages.next();
    await writer.upsert(id, source);
  }
  await writer.flush();
  if (writer.counts.rejected > 0) throw new Error(`${writer.counts.rejected} scratch pages rejected`);
  await client.indices.refresh({ index: INDEX });
  await client.indices.forcemerge({ index: INDEX, max_num_segments: 1 });
}

/** The parts of searchBodyJson's body that the variants change. */
export interface SearchBody {
  query: { bool: { must: estypes.QueryDslQueryContainer[] } };
  highlight?: estypes.SearchHighlight;
  track_total_hits?: boolean | number;
  sort?: estypes.Sort;
}

/** Matches counted at most, in the variants that do not count them all (Elasticsearch's default is 10,000). */
const COUNTED_UP_TO = 1_000;

/** The clauses of the words: the body's `must` is one bool query, any of them. */
const wordClauses = (body: SearchBody): estypes.QueryDslQueryContainer[] => body.query.bool.must[0]!.bool!.should as estypes.QueryDslQueryContainer[];

/**
 * The clauses commit 71ab147 had and 79fbe2c dropped: each word the body looks for as the start of a title word
 * (match_bool_prefix) also as the end of one, a leading wildcard on UNSTEMMED, weighted alike. The words are letters
 * only, which need no escaping in a wildcard.
 */
function titleEndClauses(body: SearchBody): estypes.QueryDslQueryContainer[] {
  return wordClauses(body).flatMap((clause) => Object.entries(clause.match_bool_prefix ?? {}).map(([field, prefix]) => {
    const { query, boost } = prefix as estypes.QueryDslMatchBoolPrefixQuery;
    return { wildcard: { [`${field}.${UNSTEMMED}`]: { value: `*${query.toLowerCase()}`, boost } } };
  }));
}

const withTitleEnds = (body: SearchBody): void => {
  const ends = titleEndClauses(body);
  wordClauses(body).push(...ends);
};

/** Without its own highlight_query, the highlighter marks what the whole query matches. */
const wholeQueryHighlighted = (body: SearchBody): void => {
  delete body.highlight!.highlight_query;
};

/**
 * The query before issue 44: every word required, each in any of the fields, no compound clauses; that is the body's
 * clause for one typed word (cross_fields, operator and) given the whole query, highlighted as it was, whole.
 */
function everyWordRequired(body: SearchBody, q: string): void {
  const typed = wordClauses(body)[0]?.multi_match;
  if (typed?.operator !== 'and') throw new Error('the body of searchBodyJson no longer starts with the clause of a typed word: change this bench with src/search/query.ts');
  body.query.bool.must = [{ multi_match: { ...typed, query: q } }];
  wholeQueryHighlighted(body);
}

interface Variant {
  /** Its row in the table: the clauses, then what the highlighter is given. */
  name: string;
  change(body: SearchBody, q: string): void;
}

const VARIANTS = {
  before: { name: 'every word required, no compound clauses (before issue 44)', change: everyWordRequired },
  endsWholeHighlight: {
    name: 'any word, joined pairs, starts and ends of title words (the ends as commit 71ab147 looked for them; the highlighter given the whole query)',
    change: (body) => { withTitleEnds(body); wholeQueryHighlighted(body); },
  },
  endsMarkedHighlight: { name: 'the same, the highlighter given the words and the joined pairs only', change: withTitleEnds },
  endsAlone: {
    name: 'the leading wildcards alone (no highlighting)',
    change: (body) => {
      body.query.bool.must = [{ bool: { should: titleEndClauses(body), minimum_should_match: 1 } }];
      delete body.highlight;
    },
  },
  wholeHighlight: { name: 'without the ends of title words (no leading wildcard), the highlighter given the whole query', change: wholeQueryHighlighted },
  shipped: { name: 'without the ends of title words, the highlighter given the words and the joined pairs only (shipped)', change: () => undefined },
  countedUpTo: {
    name: `shipped, but the matches counted up to ${COUNTED_UP_TO.toLocaleString('en')} (\`track_total_hits: ${COUNTED_UP_TO}\`) instead of all of them`,
    change: (body) => { body.track_total_hits = COUNTED_UP_TO; },
  },
  countedUpToScoreOnly: {
    name: `the same, sorted by score alone (without the page as the tie-break)`,
    change: (body) => { body.track_total_hits = COUNTED_UP_TO; body.sort = ['_score']; },
  },
} satisfies Record<string, Variant>;

export type VariantKey = keyof typeof VARIANTS;
const VARIANT_KEYS = Object.keys(VARIANTS) as VariantKey[];

/** The body searchBodyJson makes for `q`, changed as the variant `key` says. */
export function variantBody(key: VariantKey, q: string): SearchBody {
  const body = JSON.parse(searchBodyJson(parseSearchRequest({ q, size: HITS_PER_PAGE }), VIEWER)!) as SearchBody;
  VARIANTS[key].change(body, q);
  return body;
}

/** Each query's body per variant, as JSON text. */
const variantBodies = (): Map<VariantKey, string>[] => QUERIES.map((q) => new Map(VARIANT_KEYS.map((key) => [key, JSON.stringify(variantBody(key, q))])));

interface SearchAnswer {
  took: number;
  timed_out: boolean;
  _shards: { failed: number };
  hits: { total: { value: number } };
}

async function search(client: Client, body: string): Promise<SearchAnswer> {
  const answer = await client.transport.request<SearchAnswer>({ method: 'POST', path: `/${INDEX}/_search`, body }, { headers: { 'content-type': 'application/json' } });
  if (answer.timed_out || answer._shards.failed > 0) throw new Error('a partial answer (timed out or shards failed)');
  return answer;
}

/** A fresh order of `keys` (Fisher–Yates). */
function shuffled<T>(keys: readonly T[]): T[] {
  const order = [...keys];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** A variant's figures at one size: `took` of every search, and the pages each query matched. */
interface VariantFigures {
  took: number[];
  hits: number[];
}

interface SizeRun {
  pages: number;
  titleWords: number;
  megabytes: number;
  segments: number;
  figures: Record<VariantKey, VariantFigures>;
}

/** One warm-up search per body, then `rounds` rounds of every query, its variants in random order. */
async function measure(client: Client, bodies: Map<VariantKey, string>[], rounds: number): Promise<Record<VariantKey, VariantFigures>> {
  for (const byVariant of bodies) for (const body of byVariant.values()) await search(client, body);
  const figures = Object.fromEntries(VARIANT_KEYS.map((key): [VariantKey, VariantFigures] => [key, { took: [], hits: [] }])) as Record<VariantKey, VariantFigures>;
  for (let round = 0; round < rounds; round++) {
    for (const [query, byVariant] of bodies.entries()) {
      for (const key of shuffled(VARIANT_KEYS)) {
        const answer = await search(client, byVariant.get(key)!);
        figures[key].took.push(answer.took);
        figures[key].hits[query] = answer.hits.total.value;
      }
    }
  }
  return figures;
}

async function measureSizes(client: Client, pageCounts: number[], roundCount: number): Promise<SizeRun[]> {
  const runs: SizeRun[] = [];
  await client.indices.delete({ index: INDEX, ignore_unavailable: true });
  try {
    // Not refreshed while loading: the pages are searched only after the force merge.
    await client.indices.create({ index: INDEX, settings: { ...indexSettings(), refresh_interval: '-1' }, mappings: scratchMappings() });
    const pages = new ScratchPages();
    const bodies = variantBodies();
    for (const size of pageCounts) {
      const started = performance.now();
      await growTo(client, pages, size);
      console.log(`${size} pages indexed and merged (${((performance.now() - started) / 1000).toFixed(0)} s); measuring ${roundCount} rounds`);
      const figures = await measure(client, bodies, roundCount);
      const { _all: { primaries } } = await client.indices.stats({ index: INDEX, metric: ['docs', 'store', 'segments'] });
      runs.push({
        pages: primaries!.docs!.count,
        titleWords: pages.distinctTitleWords,
        megabytes: primaries!.store!.size_in_bytes / 1e6,
        segments: primaries!.segments!.count,
        figures,
      });
    }
  } finally {
    await client.indices.delete({ index: INDEX, ignore_unavailable: true })
      .catch((error: unknown) => console.error(`could not delete the scratch index ${INDEX}: ${describeSearchError(error).error}`));
  }
  return runs;
}

const meanTook = (run: SizeRun, key: VariantKey): number => mean(run.figures[key].took);
const count = (n: number): string => n.toLocaleString('en');
const times = (n: number): string => `${n.toFixed(1)} ×`;

function tookCell(took: readonly number[]): string {
  const sorted = [...took].sort((a, b) => a - b);
  return `${percentile(sorted, 0.5)} / ${percentile(sorted, 0.99)} / ${mean(sorted).toFixed(2)}`;
}

/** The paragraphs under the tables: why the ends of title words are not looked for, from this run's figures. */
function explanation(runs: SizeRun[]): string[] {
  const first = runs[0]!;
  const last = runs.at(-1)!;
  const growth = runs.length < 2 ? '' : `: alone it took ${times(meanTook(last, 'endsAlone') / meanTook(first, 'endsAlone'))} as long at ${times(last.pages / first.pages)} the pages (${times(last.titleWords / first.titleWords)} the title words)`;
  const highlighterExtra = runs.map((run) => {
    const extra = meanTook(run, 'wholeHighlight') - meanTook(run, 'shipped');
    return `${Math.abs(extra).toFixed(2)} ms ${extra >= 0 ? 'more' : 'less'} a search at ${count(run.pages)} pages`;
  });
  return [
    `The leading wildcard (\`*turnier\` on the title's words) goes through the whole term dictionary of the titles${growth}, and the highlighter went through the dictionary once more for every hit it marked (the whole query highlighted: ${meanTook(first, 'endsWholeHighlight').toFixed(2)} ms against ${meanTook(first, 'endsMarkedHighlight').toFixed(2)} ms at ${count(first.pages)} pages, means). Issue 44 allows search p99 at 500,000 pages at most 1.5 × its value at 50,000 (the Scale section). So the ends of title words are not looked for.`,
    '',
    'What that costs in relevance is not measured by this bench but on the relevance bench\'s corpus with `german` (bench/relevance; its ranking part alone, two runs by hand on 2026-11-29 one after the other, with the ends of title words as at commit 71ab147 and without them as since 79fbe2c; the relevance bench\'s own section, Wiki search: relevance and suggestions, records the shipped search): nDCG@10 0.880 with them, 0.868 without (target 0.85); must queries outside the top 3: 0 either way; the class compound-part (4 queries: `Inhalt`, `Turnier`, `Sanitätsdienst`, `Praktikum`, each a part of its topic\'s title) falls from 0.749 to 0.000, each answered with no hit.',
    '',
    `The highlighter is given the words and the joined pairs, not the starts of title words (prefixes): given the whole query, the shipped search took ${highlighterExtra.join(', ')} (means).`,
    '',
    `The service counts every match (\`track_total_hits: true\`) to answer \`total\`; counted up to ${count(COUNTED_UP_TO)}, Elasticsearch may skip pages that cannot reach the top ${HITS_PER_PAGE}: ${runs.map((run) => `${meanTook(run, 'shipped').toFixed(2)} ms against ${meanTook(run, 'countedUpTo').toFixed(2)} ms (${meanTook(run, 'countedUpToScoreOnly').toFixed(2)} ms sorted by score alone) at ${count(run.pages)} pages`).join(', ')} (means).`,
  ];
}

function sectionLines(load: string, runs: SizeRun[], roundCount: number): string[] {
  const pagesHeader = (cell: string) => runs.map((run) => `${count(run.pages)} pages: ${cell}`).join(' | ');
  const searches = roundCount * QUERIES.length;
  const hitsOf = (key: VariantKey, query: number) => runs.map((run) => count(run.figures[key].hits[query]!)).join(' / ');
  const hitColumns: [VariantKey, string][] = [
    ['before', 'every word required'], ['shipped', 'shipped'], ['endsMarkedHighlight', 'with the ends of title words'], ['endsAlone', 'the leading wildcards alone'],
  ];
  return [
    runLine(SCRIPT, load),
    '',
    `The search looks for closed compounds itself (README, Searching German text); what each kind of clause costs Elasticsearch. A scratch index, \`${INDEX}\`, with the wiki's settings and mapping (\`german\`) and the title's subfield \`${UNSTEMMED}\` of commit 71ab147 (its words only lowercased, what the dropped clause searched), filled with synthetic pages (seed ${SEED}): titles of ${TITLE_WORDS} and bodies of ${BODY_WORDS} words made of 2 to 4 of the search bench's German syllables, ${STOP_WORD_SHARE * 100} % of the body words stop words, \`${TOPIC}\` in ${TOPIC_SHARE * 100} % of the bodies; grown to ${runs.map((run) => `${count(run.pages)} pages (${count(run.titleWords)} distinct title words, ${run.megabytes.toFixed(0)} MB, ${run.segments} segment)`).join(', then ')}, force-merged at each size. At each size ${QUERIES.length} queries (the scale bench's ${SCALE_QUERIES.length} and ${QUERIES.length - SCALE_QUERIES.length} words of the pages) × ${roundCount} rounds, after one warm-up search each: the body \`searchBodyJson\` makes (size ${HITS_PER_PAGE}, one viewer, one share), changed per variant, a query's variants in random order each round; figures are Elasticsearch's \`took\` over all ${count(searches)} searches of a variant. \`CLAUSECOST_SIZES=${runs.map((run) => run.pages).join(',')} CLAUSECOST_ROUNDS=${roundCount}\` (the defaults: 50000,200000 and 60).`,
    '',
    `| query (highlighting) | ${pagesHeader('took p50 / p99 / mean, ms')} |`,
    `|---|${runs.map(() => '---').join('|')}|`,
    ...VARIANT_KEYS.map((key) => `| ${VARIANTS[key].name} | ${runs.map((run) => tookCell(run.figures[key].took)).join(' | ')} |`),
    '',
    `Pages matched per query (\`hits.total\`), at ${runs.map((run) => count(run.pages)).join(' / ')} pages:`,
    '',
    `| query | ${hitColumns.map(([, label]) => label).join(' | ')} |`,
    `|---|${hitColumns.map(() => '---:').join('|')}|`,
    ...QUERIES.map((q, i) => `| \`${q}\` | ${hitColumns.map(([key]) => hitsOf(key, i)).join(' | ')} |`),
    '',
    ...explanation(runs),
  ];
}

async function measureAll(): Promise<BenchReport> {
  const pageCounts = sizes();
  const roundCount = rounds();
  const env = await readTestbedEnv();
  const load = loadAverage();
  // A force merge of the largest size takes minutes.
  const client = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 600_000 });
  try {
    const runs = await measureSizes(client, pageCounts, roundCount);
    return report(HEADING, sectionLines(load, runs, roundCount), []);
  } finally {
    await client.close();
  }
}

/** Elasticsearch errors carry the whole request body; say what failed in one line instead. */
async function run(): Promise<BenchReport> {
  try {
    return await measureAll();
  } catch (error) {
    throw new Error(`clause cost bench failed: ${describeSearchError(error).error}`);
  }
}

export const clauseCostBench: Benchmark = { name: 'search clause cost', script: SCRIPT, run };

await runAlone(import.meta.url, clauseCostBench);
