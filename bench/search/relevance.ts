/**
 * Search quality and suggestions on the testbed:
 * - relevance: the relevance corpus (bench/relevance: 2,000 generated school pages, 256 queries judged from the
 *   pages' topics in bench/relevance/queries.json) indexed once with `standard` and once with `german`, side by side
 *   in one run, with the wiki's own settings, mapping and writer, searched as POST /wiki/search searches: nDCG@10,
 *   precision@10, recall@10 and MRR, per class of query, the must queries in the top 3; the suggestions' precision
 *   of the first 5 for 100 prefixes, asked as GET /wiki/suggest asks;
 * - suggestions: `GET /wiki/suggest` through the service next to the same Elasticsearch query sent straight to
 *   Elasticsearch (same permission filter), one connection, p50 latency: what the service adds.
 *   node dist/bench/search/relevance.js
 * Needs wrk on PATH and the testbed up. Writes its section "## Wiki search: relevance and suggestions".
 */
import type { Client } from '@elastic/elasticsearch';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSearchError } from '../../src/search/search-failure.js';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS, type TextAnalyzer } from '../../src/search/mapping.js';
import { parseSuggestRequest, suggestBody } from '../../src/search/query.js';
import type { SuggestResult } from '../../src/search/search.js';
import { startService } from '../../test/support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../test/testbed/env.js';
import { layout } from '../../test/testbed/layout.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { DEFAULT_PAGES, DEFAULT_SEED, generateCorpus, type PageRole } from '../relevance/corpus.js';
import { readQueries } from '../relevance/judgments.js';
import { describeOutcome, indexCorpus, measureRanking, measureSuggestions, MUST_WITHIN, SUGGESTIONS_JUDGED, TOP, type RankingFigures, type RankingRun, type SuggestionRun } from '../relevance/measure.js';
import { suggestionPrefixes } from '../relevance/prefixes.js';
import { TOPICS } from '../relevance/topics.js';
import { judged, loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { callerHeaders, callerViewer, CALLER } from './caller.js';
import { LATENCY_ARGS, SEEDED_SHARE_SERVICE, seed, SHARE, unseed, WARMUP_ARGS, wrk, type Measurement, type Processes, type Target } from './run.js';
import { scratchDir } from '../../test/support/scratch-dir.js';

const HEADING = '## Wiki search: relevance and suggestions';
const SCRIPT = 'dist/bench/search/relevance.js';
const ANALYZERS: TextAnalyzer[] = ['standard', 'german'];
/** The shipped analyzer's target: nDCG@10 over every judged query, and no must query outside the top 3. */
const NDCG_TARGET = 0.85;
/** Pages seeded for the suggestion rounds (the search bench's synthetic pages). */
const PAGES = 20_000;
const ROUNDS = 5;
/** What is typed: the start of a word of the synthetic pages' headings. */
const PREFIX = 'Schu';

const pct = (n: number) => n.toFixed(3);
/** The median of an odd number of figures. */
const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface RelevanceRuns {
  ranking: RankingRun[];
  suggestions: SuggestionRun[];
  lines: string[];
}

const figureCells = (f: RankingFigures) => `${pct(f.ndcg)} | ${pct(f.precision)} | ${pct(f.recall)} | ${pct(f.mrr)}`;

/** A query below this nDCG@10 is listed with the analyzer's terms, to say why it misses. */
const LOW_NDCG = 0.5;

/** A line per class below NDCG_TARGET: its relevant pages that the query did not match, by role, and those not in the first 10. */
function classesBelow(run: RankingRun): string[] {
  return [...run.byClass].filter(([, figures]) => figures.ndcg < NDCG_TARGET).map(([c, figures]) => {
    const outcomes = run.outcomes.filter((o) => o.query.class === c);
    const unmatched = (role: PageRole) => outcomes.reduce((n, o) => n + o.unmatched[role], 0);
    const outranked = outcomes.reduce((n, o) => n + o.outranked, 0);
    const empty = outcomes.filter((o) => o.ranked.length === 0).length;
    return `- ${c} (nDCG@10 ${pct(figures.ndcg)}, ${outcomes.length} queries, ${empty} answered with no hit): relevant pages not matched at all — ${unmatched('main')} main, ${unmatched('aspect')} aspect, ${unmatched('mention')} mention pages; ${outranked} not in the first 10 of answers with more hits (ranked below 10, or not matched).`;
  });
}

/** The terms the index's title field makes of `text`. */
async function termsOf(client: Client, index: string, text: string): Promise<string> {
  const { tokens = [] } = await client.indices.analyze({ index, field: 'title', text });
  return tokens.map((token) => token.token).join(' ');
}

/** The run's queries below LOW_NDCG, a line per class: each query's terms next to its topic's title's. */
async function explainMisses(client: Client, index: string, run: RankingRun): Promise<string[]> {
  const titles = new Map(TOPICS.map((topic) => [topic.id, topic.title.sg]));
  const byClass = new Map<string, string[]>();
  for (const outcome of run.outcomes.filter((o) => o.ndcg < LOW_NDCG)) {
    const title = titles.get(Object.keys(outcome.query.topics)[0]!)!;
    const said = `"${outcome.query.q}" → ${await termsOf(client, index, outcome.query.q)} (title "${title}" → ${await termsOf(client, index, title)}; nDCG ${pct(outcome.ndcg)})`;
    byClass.set(outcome.query.class, [...(byClass.get(outcome.query.class) ?? []), said]);
  }
  return [...byClass].map(([c, said]) => `- ${c}: ${said.join('; ')}.`);
}

async function relevance(env: TestbedEnv): Promise<RelevanceRuns> {
  const client = createSearchClient({ nodes: [env.es.url] });
  const corpus = generateCorpus(DEFAULT_SEED, DEFAULT_PAGES);
  const queries = readQueries();
  const prefixes = suggestionPrefixes();
  const ranking: RankingRun[] = [];
  const suggestions: SuggestionRun[] = [];
  let missed: string[] = [];
  try {
    for (const analyzer of ANALYZERS) {
      const index = `bench-relevance-${analyzer}`;
      await client.indices.delete({ index, ignore_unavailable: true });
      try {
        await indexCorpus(client, index, analyzer, corpus);
        ranking.push(await measureRanking(client, index, analyzer, corpus, queries));
        suggestions.push(await measureSuggestions(client, index, analyzer, corpus, prefixes));
        if (analyzer === 'german') missed = await explainMisses(client, index, ranking.at(-1)!);
      } finally {
        await client.indices.delete({ index, ignore_unavailable: true });
      }
    }
  } finally {
    await client.close();
  }
  const must = queries.filter((query) => query.must).length;
  const classes = [...ranking[0]!.byClass.keys()];
  const byRole = new Map<string, number>();
  for (const page of corpus) byRole.set(page.role, (byRole.get(page.role) ?? 0) + 1);
  const lines = [
    `Relevance: the corpus of \`bench/relevance/corpus.ts\` (seed ${DEFAULT_SEED}: ${corpus.length.toLocaleString('en')} pages, ${[...byRole].map(([role, n]) => `${n} ${role}`).join(', ')}), ${queries.length} queries judged from the pages' topics (\`bench/relevance/queries.json\`, ${must} marked must), the same pages indexed with each analyzer in the same run with the wiki's settings, mapping and bulk writer, searched as the service searches (WikiSearch: any of the words, cross_fields over title^3, headings^2, body; neighbouring words joined as one compound; each word as the start of a title word; BM25 b 0.5; the typo rule when nothing matched), the first ${TOP} hits scored.`,
    '',
    '| analyzer | nDCG@10 | precision@10 | recall@10 | MRR | must queries in the top 3 | answered by the typo rule | suggestions: precision of the first 5 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...ranking.map((run, i) => `| ${run.analyzer} | ${figureCells(run)} | ${must - run.mustMissed.length} of ${must} | ${run.outcomes.filter((o) => o.corrected).length} | ${pct(suggestions[i]!.precision)} (${suggestions[i]!.empty.length} of ${suggestions[i]!.prefixes} prefixes without a suggestion) |`),
    '',
    'By class of query (nDCG@10 | precision@10 | recall@10 | MRR):',
    '',
    `| class | queries | ${ranking.map((run) => run.analyzer).join(' | ')} |`,
    `|---|---:|${ranking.map(() => '---').join('|')}|`,
    ...classes.map((c) => `| ${c} | ${ranking[0]!.byClass.get(c)!.queries} | ${ranking.map((run) => figureCells(run.byClass.get(c)!).replaceAll(' | ', ' / ')).join(' | ')} |`),
    '',
    `nDCG@10: the discounted gain (2^grade − 1 over log2(rank + 1)) of the first ${TOP} hits over that of the best possible order of the judged pages; precision@10: relevant hits (grade ≥ 1) among the first ${TOP} places; recall@10: the share of a query's relevant pages among its first ${TOP} hits; MRR: the mean of 1 / the rank of the first relevant hit (0 when none is in the first ${TOP}); a must query is met when a page of its best grade is among the first ${MUST_WITHIN}. A query judges its topic's main page 3, the topic's two aspect pages 2 and the two pages naming it in passing 1, so precision@10 cannot pass 0.5. Suggestions: ${prefixes.length} prefixes made from the topics' titles (\`bench/relevance/prefixes.ts\`), a suggestion relevant when its page is the prefix's topic's main or aspect page, the share of relevant ones among the first ${SUGGESTIONS_JUDGED} shown.`,
    ...ranking.map((run) => `${run.analyzer}, must queries outside the top ${MUST_WITHIN}: ${run.mustMissed.map(describeOutcome).join('; ') || 'none'}.`),
    '',
    `german, where the relevant pages of the classes below nDCG@10 ${NDCG_TARGET} went (a page matching none of a query's words, compounds and parts of title words is not found):`,
    ...classesBelow(ranking.find((run) => run.analyzer === 'german')!),
    '',
    `german, the queries below nDCG@10 ${LOW_NDCG} by class, each with the terms \`german\` makes of it and of its topic's title (\`_analyze\` on the index's title field): ${missed.length === 0 ? 'none.' : ''}`,
    ...missed,
  ];
  return { ranking, suggestions, lines };
}

/** The targets' names and their rounds: Elasticsearch directly first, then the service. */
async function suggestions(env: TestbedEnv): Promise<{ targets: string[]; rounds: Measurement[][]; checked: string }> {
  const client = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 120_000 });
  const work = scratchDir('wiki-suggest-bench-');
  const started = Date.now();
  const service = await startService(SEEDED_SHARE_SERVICE);
  let ids: string[] = [];
  try {
    await passAfter(service, started);
    ids = await seed(env, client, PAGES);
    const request = parseSuggestRequest(new URLSearchParams({ q: PREFIX }));
    const directBody = join(work, 'direct.json');
    writeFileSync(directBody, JSON.stringify(suggestBody(request, callerViewer(env, SHARE))));
    const { authorization, groups } = callerHeaders(env);
    const path = `/wiki/suggest?${new URLSearchParams({ q: PREFIX })}`;
    const targets: Target[] = [
      { name: 'Elasticsearch directly (same query and permission filter)', url: env.es.url, luaArgs: [`/${DEFAULT_ALIAS}/_search`, directBody] },
      { name: 'service GET /wiki/suggest', url: service.url, luaArgs: [path, '-', authorization, groups] },
    ];
    // Both must name the same pages, or the comparison means nothing.
    const viaService = (await (await fetch(`${service.url}${path}`, { headers: { authorization, 'x-service-groups': groups } })).json()) as SuggestResult;
    const direct = (await (await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_search`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: readFileSync(directBody),
    })).json()) as { hits: { hits: { _source: { path: string } }[] } };
    const servicePages = [...new Set(viaService.suggestions.map((s) => s.path))];
    const directPages = direct.hits.hits.map((hit) => hit._source.path);
    if (servicePages.length === 0 || servicePages.join() !== directPages.slice(0, servicePages.length).join()) {
      throw new Error(`the targets disagree: service ${servicePages.join()} / direct ${directPages.join()}`);
    }
    const checked = `both name the same ${servicePages.length} pages first (${viaService.suggestions.length} suggestions: ${viaService.suggestions.slice(0, 3).map((s) => `"${s.text}"`).join(', ')}, …)`;
    const pids: Processes = { service: service.process.pid!, elasticsearch: [Number(readFileSync(layout.elasticsearch.pidFile, 'utf8').trim())] };
    for (const target of targets) await wrk(WARMUP_ARGS, target, pids);
    const rounds: Measurement[][] = targets.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const one = await wrk(LATENCY_ARGS, target, pids);
        rounds[i]!.push(one);
        console.log(`round ${round} ${target.name}: c1 p50 ${one.p50ms.toFixed(2)} ms, p99 ${one.p99ms.toFixed(2)} ms, ${one.rps.toFixed(0)} req/s`);
      }
    }
    return { targets: targets.map((target) => target.name), rounds, checked };
  } finally {
    await unseed(client, ids).catch((error: unknown) => console.error(`could not remove the seeded pages: ${describeSearchError(error).error}`));
    await service.stop();
    await client.close();
  }
}

async function measureAll(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const load = loadAverage();
  const { ranking, lines: relevanceLines } = await relevance(env);
  const { targets, rounds, checked } = await suggestions(env);
  const [direct, service] = rounds.map((all) => middle(all.map((m) => m.p50ms))) as [number, number];
  const [standard, german] = ranking as [RankingRun, RankingRun];
  const added = service - direct;
  const unexpected = rounds.flat().reduce((all, m) => all.with(m.unexpected), new Unexpected());
  const summary = [
    judged({ figure: 'relevance nDCG@10, german (shipped)', service: pct(german.ndcg), peer: `${pct(standard.ndcg)} (standard)`, ratio: `must queries outside the top 3: ${german.mustMissed.length} vs ${standard.mustMissed.length}`, target: `≥ ${NDCG_TARGET}, no must query outside the top 3` },
      german.ndcg >= NDCG_TARGET && german.mustMissed.length === 0),
    judged({ figure: 'suggest p50 ms, 1 connection', service: service.toFixed(2), peer: `${direct.toFixed(2)} (Elasticsearch directly)`, ratio: `${added >= 0 ? '+' : ''}${added.toFixed(2)} ms`, target: '≤ +5 ms' },
      added <= 5, unexpected),
  ];
  const lines = [
    runLine(SCRIPT, load),
    '',
    ...relevanceLines,
    '',
    `Suggestions: ${PAGES.toLocaleString('en')} synthetic pages of the search bench seeded into \`${DEFAULT_ALIAS}\` under the share \`${SHARE}\`; \`GET /wiki/suggest?q=${PREFIX}\` as ${CALLER.user} with \`X-Service-Groups: ${CALLER.groups.join(', ')}\`; ${checked}. Direct: the body the service sends (match_bool_prefix on title and headings under the permission filter, highlighting with empty tags), posted to \`/${DEFAULT_ALIAS}/_search\`.`,
    `Commands per target and round: \`wrk ${LATENCY_ARGS.join(' ')} -s bench/search/search.lua <url> -- <path> <body-file | -> [<authorization> <groups>]\` (${ROUNDS} rounds interleaving the targets after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; the medians of the rounds' figures).`,
    '',
    '| target | p50 ms, 1 connection (median of rounds) | rounds p50 ms | p99 ms (median of rounds) | unexpected answers |',
    '|---|---:|---|---:|---:|',
    ...targets.map((name, i) => {
      const all = rounds[i]!;
      return `| ${name} | ${middle(all.map((r) => r.p50ms)).toFixed(2)} | ${all.map((r) => r.p50ms.toFixed(2)).join(', ')} | ${middle(all.map((r) => r.p99ms)).toFixed(2)} | ${all.reduce((n, r) => n + r.unexpected.total, 0)} |`;
    }),
    '',
    `Added by the service: ${added.toFixed(2)} ms at p50 (target ≤ 5 ms).`,
    '',
  ];
  return report(HEADING, lines, summary);
}

async function run(): Promise<BenchReport> {
  try {
    return await measureAll();
  } catch (error) {
    throw new Error(`relevance and suggestion bench failed: ${describeSearchError(error).error}`);
  }
}

export const relevanceBench: Benchmark = { name: 'search relevance and suggestions', script: SCRIPT, run };

await runAlone(import.meta.url, relevanceBench);
