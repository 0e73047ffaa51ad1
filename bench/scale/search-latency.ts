/**
 * Search at one size of the scale bench: `POST /wiki/search` as the search benches' caller (caller.ts), and the
 * body the service sends Elasticsearch for that caller and query, posted straight to Elasticsearch. Sequential
 * (one request at a time), QUERIES in turn, the two targets alternating request by request so that a drift of the
 * shared host's load falls on both; WARMUP requests each first. Elasticsearch's answers also say where its time
 * goes: its own time for the query (`took`) and, counted apart, how many pages each query matched under the caller's filter.
 */
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { Unexpected } from '../results.js';
import { searchAnswerProblem } from '../search/answer.js';
import { callerHeaders, callerSearchBody } from '../search/caller.js';
import { percentile } from '../stats.js';

/** Words of the seeded pages (test/integration/reconcile/markdown.ts): one, two and three to a query. */
export const QUERIES = ['Elternabend', 'Vertretungsplan Mathematik', 'Klassenfahrt', 'Notenschluss Zeugnis', 'Bibliothek Projekttag Mensa'];
export const WARMUP = 30;
export const REQUESTS = 300;

export interface SearchLatency {
  p50: number;
  p99: number;
  requests: number;
  unexpected: Unexpected;
}

/** What Elasticsearch said of the direct searches: its own time, and the pages each query matched. */
export interface SearchWork {
  tookP50: number;
  tookP99: number;
  /** By query: the pages it matched, counted apart (the search counts only up to COUNTED_MATCHES). */
  matched: Record<string, number>;
}

/** The `n`-th query (QUERIES in turn) through the service; resolves to what was wrong with its answer (answer.ts), if anything. */
export async function serviceSearch(env: TestbedEnv, serviceUrl: string, n: number): Promise<string | undefined> {
  const { authorization, groups } = callerHeaders(env);
  const res = await fetch(`${serviceUrl}/wiki/search`, {
    method: 'POST',
    headers: { authorization, 'x-service-groups': groups, 'content-type': 'application/json' },
    body: JSON.stringify({ q: QUERIES[n % QUERIES.length]! }),
  });
  return searchAnswerProblem(res.status, await res.text());
}

async function directSearch(env: TestbedEnv, share: string, n: number, took: number[]): Promise<string | undefined> {
  const q = QUERIES[n % QUERIES.length]!;
  const res = await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: callerSearchBody(env, { q }, share),
  });
  const text = await res.text();
  if (res.status !== 200) return `status ${res.status}`;
  const answer = JSON.parse(text) as { took: number; timed_out: boolean; _shards: { failed: number } };
  // Elasticsearch's own degraded answer: 200 with the hits of only some shards.
  if (answer.timed_out || answer._shards.failed > 0) return 'partial (timed out or shards failed)';
  took.push(answer.took);
  return undefined;
}

/** Every page each query matches under the caller's filter (`_count` of the search's query). */
async function matchedPages(env: TestbedEnv, share: string): Promise<Record<string, number>> {
  const matched: Record<string, number> = {};
  for (const q of QUERIES) {
    const { query } = JSON.parse(callerSearchBody(env, { q }, share)) as { query: unknown };
    const res = await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    if (res.status !== 200) throw new Error(`counting the matches of '${q}': status ${res.status}`);
    matched[q] = ((await res.json()) as { count: number }).count;
  }
  return matched;
}

/** Times one request; an answer other than 200, a degraded one, or none counts as unexpected. */
async function timed(send: () => Promise<string | undefined>, latencies: number[], unexpected: Unexpected, target: string): Promise<void> {
  const started = performance.now();
  const problem = await send().catch(() => 'no answer');
  latencies.push(performance.now() - started);
  if (problem !== undefined) unexpected.add(target, problem);
}

export async function searchLatencies(env: TestbedEnv, serviceUrl: string, share: string): Promise<{ service: SearchLatency; direct: SearchLatency; work: SearchWork }> {
  const latencies = { service: [] as number[], direct: [] as number[] };
  const unexpected = { service: new Unexpected(), direct: new Unexpected() };
  const took: number[] = [];
  for (let n = 0; n < WARMUP + REQUESTS; n++) {
    const keep = n >= WARMUP;
    await timed(() => serviceSearch(env, serviceUrl, n), keep ? latencies.service : [], keep ? unexpected.service : new Unexpected(), 'service');
    const direct = () => directSearch(env, share, n, keep ? took : []);
    await timed(direct, keep ? latencies.direct : [], keep ? unexpected.direct : new Unexpected(), 'Elasticsearch');
  }
  const sorted = (all: number[]) => [...all].sort((a, b) => a - b);
  const figures = (all: number[], u: Unexpected): SearchLatency => {
    const ordered = sorted(all);
    return { p50: percentile(ordered, 0.5), p99: percentile(ordered, 0.99), requests: ordered.length, unexpected: u };
  };
  const tookSorted = sorted(took);
  return {
    service: figures(latencies.service, unexpected.service),
    direct: figures(latencies.direct, unexpected.direct),
    work: { tookP50: percentile(tookSorted, 0.5), tookP99: percentile(tookSorted, 0.99), matched: await matchedPages(env, share) },
  };
}
