/**
 * Search quality and suggestions on the testbed:
 * - relevance: the relevance suite's judged German queries (test/integration/search/relevance-corpus.ts) against
 *   the same pages indexed once with `standard` and once with `german`, side by side in one run: recall@10, MRR,
 *   the "must" queries in the top 3, per kind of query;
 * - suggestions: `GET /wiki/suggest` through the service next to the same Elasticsearch query sent straight to
 *   Elasticsearch (same permission filter), one connection, p50 latency: what the service adds.
 *   node dist/bench/search/relevance.js
 * Needs wrk on PATH and the testbed up. Writes its section "## Wiki search: relevance and suggestions".
 */
import { writeFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { RELEVANCE_PAGES, RELEVANCE_QUERIES } from '../../test/integration/search/relevance-corpus.js';
import { describeOutcome, indexRelevancePages, measureRelevance, type RelevanceRun } from '../../test/integration/search/relevance.js';
import { judged, loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { callerHeaders, callerViewer, CALLER } from './caller.js';
import { LATENCY_ARGS, SEEDED_SHARE_SERVICE, seed, SHARE, unseed, WARMUP_ARGS, wrk, type Measurement, type Processes, type Target } from './run.js';

const HEADING = '## Wiki search: relevance and suggestions';
const SCRIPT = 'dist/bench/search/relevance.js';
const ANALYZERS: TextAnalyzer[] = ['standard', 'german'];
/** Pages seeded for the suggestion rounds (the search bench's synthetic pages). */
const PAGES = 20_000;
const ROUNDS = 5;
/** What is typed: the start of a word of the synthetic pages' headings. */
const PREFIX = 'Schu';

const pct = (n: number) => n.toFixed(3);
/** The median of an odd number of figures. */
const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function relevance(env: TestbedEnv): Promise<{ runs: RelevanceRun[]; lines: string[] }> {
  const client = createSearchClient(env.es.url);
  const runs: RelevanceRun[] = [];
  try {
    for (const analyzer of ANALYZERS) {
      const index = `bench-relevance-${analyzer}`;
      await client.indices.delete({ index, ignore_unavailable: true });
      await indexRelevancePages(client, index, analyzer);
      try {
        runs.push(await measureRelevance(client, index, analyzer));
      } finally {
        await client.indices.delete({ index });
      }
    }
  } finally {
    await client.close();
  }
  const must = RELEVANCE_QUERIES.filter((query) => query.must).length;
  const kinds = [...runs[0]!.byKind.keys()];
  const lines = [
    `Relevance: ${RELEVANCE_QUERIES.length} judged queries (${must} marked must) over ${Object.keys(RELEVANCE_PAGES).length} pages, searched as the service searches (WikiSearch: cross_fields over title^3, headings^2, body, all words; the typo rule when nothing matched), the same pages indexed with each analyzer in the same run.`,
    '',
    `| analyzer | recall@10 | MRR | must queries in the top 3 | answered by the typo rule | ${kinds.map((kind) => `recall@10 ${kind}`).join(' | ')} |`,
    `|---|---:|---:|---:|---:|${kinds.map(() => '---:').join('|')}|`,
    ...runs.map((run) => `| ${run.analyzer} | ${pct(run.recallAt10)} | ${pct(run.mrr)} | ${must - run.mustMissed.length} of ${must} | ${run.outcomes.filter((o) => o.corrected).length} | ${kinds.map((kind) => `${pct(run.byKind.get(kind)!.recallAt10)} (${run.byKind.get(kind)!.queries})`).join(' | ')} |`),
    '',
    'recall@10: the share of a query\'s relevant pages among its first 10 hits, averaged over the queries; MRR: the mean of 1 / the rank of the first relevant hit (0 when none is in the first 10); a must query is met when its best page is among the first 3.',
    ...runs.map((run) => `${run.analyzer}, queries with a relevant page outside the top 10 or a must page below 3: ${run.outcomes.filter((o) => o.ranks.includes(null) || run.mustMissed.includes(o)).map(describeOutcome).join('; ') || 'none'}.`),
  ];
  return { runs, lines };
}

/** The targets' names and their rounds: Elasticsearch directly first, then the service. */
async function suggestions(env: TestbedEnv): Promise<{ targets: string[]; rounds: Measurement[][]; checked: string }> {
  const client = createSearchClient(env.es.url, { requestTimeoutMs: 120_000 });
  const work = mkdtempSync(join(tmpdir(), 'wiki-suggest-bench-'));
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
  const { runs, lines: relevanceLines } = await relevance(env);
  const { targets, rounds, checked } = await suggestions(env);
  const [direct, service] = rounds.map((all) => middle(all.map((m) => m.p50ms))) as [number, number];
  const german = runs.find((run) => run.analyzer === 'german')!;
  const added = service - direct;
  const unexpected = rounds.flat().reduce((all, m) => all.with(m.unexpected), new Unexpected());
  const summary = [
    judged({ figure: 'relevance recall@10, german (shipped)', service: pct(german.recallAt10), peer: `${pct(runs[0]!.recallAt10)} (standard)`, ratio: `MRR ${pct(german.mrr)} vs ${pct(runs[0]!.mrr)}`, target: '≥ 0.9, every must query in the top 3' },
      german.recallAt10 >= 0.9 && german.mustMissed.length === 0),
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
