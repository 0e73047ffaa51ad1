/**
 * What the clauses with which the wiki search looks for closed compounds cost Elasticsearch (issue 44), and so why it
 * no longer looks for a word as the end of a title word (commit 79fbe2c) (what counting the matches costs:
 * count-cost.ts):
 *   node dist/bench/search/clause-cost.js     (CLAUSECOST_SIZES, default 50000,200000; CLAUSECOST_ROUNDS, default 60)
 * A scratch index, `bench-clause-cost`, with the wiki's settings and mapping (`german`) and the title's subfield that
 * the dropped clause searched, grows through the sizes with synthetic pages (ScratchPages) and is force-merged to one
 * segment at each. There each query's body, as searchBodyJson makes it, is sent changed per VARIANTS, a query's
 * variants in random order each round, and Elasticsearch's `took` of every search is kept (scratch-index.ts). Needs the testbed's
 * Elasticsearch; deletes the scratch index afterwards, also when it fails. Writes its section "## Wiki search: what
 * the compound clauses cost" with no summary rows: it explains a cost and has no target of its own (search at scale
 * has its targets in the scale bench).
 */
import type { estypes } from '@elastic/elasticsearch';
import { indexMappings, indexSettings } from '../../src/search/mapping.js';
import { parseSearchRequest, searchBodyJson, type Viewer } from '../../src/search/query.js';
import { EVERYONE_SID } from '../../src/wiki/acl.js';
import { seededRandom } from '../../test/integration/search/seeded-random.js';
import { runAlone, runLine } from '../results.js';
import { QUERIES as SCALE_QUERIES } from '../scale/search-latency.js';
import { mean } from '../relevance/metrics.js';
import { textGenerator } from './run.js';
import { count, matchedCell, scratchBenchmark, tookCell, type PageSource, type SizeRun } from './scratch-index.js';

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

/**
 * The synthetic pages one after another, page n the same in every run: titles of TITLE_WORDS and bodies of BODY_WORDS
 * words of the search bench's syllables. Counts the distinct title words as UNSTEMMED indexes them.
 */
class ScratchPages implements PageSource {
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

/** The parts of searchBodyJson's body that the variants change. */
export interface SearchBody {
  query: { bool: { must: estypes.QueryDslQueryContainer[] } };
  highlight?: estypes.SearchHighlight;
}

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

/** Distinct title words at each size, as the pages grew (ScratchPages counts them). */
const titleWordsAt = new Map<number, number>();
const titleWords = (run: SizeRun<VariantKey>): number => titleWordsAt.get(run.pages)!;

const meanTook = (run: SizeRun<VariantKey>, key: VariantKey): number => mean(run.figures[key].took);
const times = (n: number): string => `${n.toFixed(1)} ×`;

/** The paragraphs under the tables: why the ends of title words are not looked for, from this run's figures. */
function explanation(runs: SizeRun<VariantKey>[]): string[] {
  const first = runs[0]!;
  const last = runs.at(-1)!;
  const growth = runs.length < 2 ? '' : `: alone it took ${times(meanTook(last, 'endsAlone') / meanTook(first, 'endsAlone'))} as long at ${times(last.pages / first.pages)} the pages (${times(titleWords(last) / titleWords(first))} the title words)`;
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
  ];
}

function sectionLines(load: string, runs: SizeRun<VariantKey>[], roundCount: number): string[] {
  const pagesHeader = (cell: string) => runs.map((run) => `${count(run.pages)} pages: ${cell}`).join(' | ');
  const searches = roundCount * QUERIES.length;
  const hitsOf = (key: VariantKey, query: number) => runs.map((run) => matchedCell(run.figures[key].hits[query]!)).join(' / ');
  const hitColumns: [VariantKey, string][] = [
    ['before', 'every word required'], ['shipped', 'shipped'], ['endsMarkedHighlight', 'with the ends of title words'], ['endsAlone', 'the leading wildcards alone'],
  ];
  return [
    runLine(SCRIPT, load),
    '',
    `The search looks for closed compounds itself (README, Searching German text); what each kind of clause costs Elasticsearch. A scratch index, \`${INDEX}\`, with the wiki's settings and mapping (\`german\`) and the title's subfield \`${UNSTEMMED}\` of commit 71ab147 (its words only lowercased, what the dropped clause searched), filled with synthetic pages (seed ${SEED}): titles of ${TITLE_WORDS} and bodies of ${BODY_WORDS} words made of 2 to 4 of the search bench's German syllables, ${STOP_WORD_SHARE * 100} % of the body words stop words, \`${TOPIC}\` in ${TOPIC_SHARE * 100} % of the bodies; grown to ${runs.map((run) => `${count(run.pages)} pages (${count(titleWords(run))} distinct title words, ${run.megabytes.toFixed(0)} MB, ${run.segments} segment)`).join(', then ')}, force-merged at each size. At each size ${QUERIES.length} queries (the scale bench's ${SCALE_QUERIES.length} and ${QUERIES.length - SCALE_QUERIES.length} words of the pages) × ${roundCount} rounds, after one warm-up search each: the body \`searchBodyJson\` makes (size ${HITS_PER_PAGE}, one viewer, one share), changed per variant, a query's variants in random order each round; figures are Elasticsearch's \`took\` over all ${count(searches)} searches of a variant. \`CLAUSECOST_SIZES=${runs.map((run) => run.pages).join(',')} CLAUSECOST_ROUNDS=${roundCount}\` (the defaults: 50000,200000 and 60).`,
    '',
    `| query (highlighting) | ${pagesHeader('took p50 / p99 / mean, ms')} |`,
    `|---|${runs.map(() => '---').join('|')}|`,
    ...VARIANT_KEYS.map((key) => `| ${VARIANTS[key].name} | ${runs.map((run) => tookCell(run.figures[key].took)).join(' | ')} |`),
    '',
    `Pages matched per query (\`hits.total\`; \`+\`: Elasticsearch stopped counting, as the service does at 10,000), at ${runs.map((run) => count(run.pages)).join(' / ')} pages:`,
    '',
    `| query | ${hitColumns.map(([, label]) => label).join(' | ')} |`,
    `|---|${hitColumns.map(() => '---:').join('|')}|`,
    ...QUERIES.map((q, i) => `| \`${q}\` | ${hitColumns.map(([key]) => hitsOf(key, i)).join(' | ')} |`),
    '',
    ...explanation(runs),
  ];
}

export const clauseCostBench = scratchBenchmark({
  name: 'search clause cost',
  script: SCRIPT,
  heading: HEADING,
  index: INDEX,
  // Not refreshed while loading: the pages are searched only after the force merge.
  settings: { ...indexSettings(), refresh_interval: '-1' },
  mappings: scratchMappings(),
  envPrefix: 'CLAUSECOST',
  defaultSizes: '50000,200000',
  defaultRounds: 60,
  pages: () => new ScratchPages(),
  bodies: variantBodies,
  settle: async (client, pages) => {
    titleWordsAt.set(pages.made, pages.distinctTitleWords);
    await client.indices.forcemerge({ index: INDEX, max_num_segments: 1 });
  },
  section: sectionLines,
});

await runAlone(import.meta.url, clauseCostBench);
