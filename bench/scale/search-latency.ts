/**
 * Search at one size of the scale bench: `POST /wiki/search` as the search benches' caller (caller.ts), and the
 * body the service sends Elasticsearch for that caller and query, posted straight to Elasticsearch. Sequential
 * (one request at a time), QUERIES in turn, the two targets alternating request by request so that a drift of the
 * shared host's load falls on both; WARMUP requests each first. Elasticsearch's answers also say where its time
 * goes: its own time for the query (`took`) and how many pages each query matched under the caller's filter.
 */
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { Unexpected } from '../results.js';
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
  /** By query: the pages it matched (the exact total the body asks for). */
  matched: Record<string, number>;
}

/** The `n`-th query (QUERIES in turn) through the service; resolves to whether it answered 200. */
export async function serviceSearch(env: TestbedEnv, serviceUrl: string, n: number): Promise<boolean> {
  const { authorization, groups } = callerHeaders(env);
  const res = await fetch(`${serviceUrl}/wiki/search`, {
    method: 'POST',
    headers: { authorization, 'x-service-groups': groups, 'content-type': 'application/json' },
    body: JSON.stringify({ q: QUERIES[n % QUERIES.length]! }),
  });
  await res.arrayBuffer();
  return res.status === 200;
}

async function directSearch(env: TestbedEnv, share: string, n: number, work: { took: number[]; matched: Record<string, number> }): Promise<boolean> {
  const q = QUERIES[n % QUERIES.length]!;
  const res = await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: callerSearchBody(env, { q }, share),
  });
  const text = await res.text();
  if (res.status !== 200) return false;
  const answer = JSON.parse(text) as { took: number; hits: { total: { value: number } } };
  work.took.push(answer.took);
  work.matched[q] = answer.hits.total.value;
  return true;
}

/** Times one request; an answer other than 200, or none, counts as unexpected. */
async function timed(send: () => Promise<boolean>, latencies: number[], unexpected: Unexpected, target: string): Promise<void> {
  const started = performance.now();
  const ok = await send().catch(() => false);
  latencies.push(performance.now() - started);
  if (!ok) unexpected.add(target, 'not 200');
}

export async function searchLatencies(env: TestbedEnv, serviceUrl: string, share: string): Promise<{ service: SearchLatency; direct: SearchLatency; work: SearchWork }> {
  const latencies = { service: [] as number[], direct: [] as number[] };
  const unexpected = { service: new Unexpected(), direct: new Unexpected() };
  const work = { took: [] as number[], matched: {} as Record<string, number> };
  for (let n = 0; n < WARMUP + REQUESTS; n++) {
    const keep = n >= WARMUP;
    await timed(() => serviceSearch(env, serviceUrl, n), keep ? latencies.service : [], keep ? unexpected.service : new Unexpected(), 'service');
    const direct = () => directSearch(env, share, n, keep ? work : { took: [], matched: {} });
    await timed(direct, keep ? latencies.direct : [], keep ? unexpected.direct : new Unexpected(), 'Elasticsearch');
  }
  const sorted = (all: number[]) => [...all].sort((a, b) => a - b);
  const figures = (all: number[], u: Unexpected): SearchLatency => {
    const ordered = sorted(all);
    return { p50: percentile(ordered, 0.5), p99: percentile(ordered, 0.99), requests: ordered.length, unexpected: u };
  };
  const took = sorted(work.took);
  return {
    service: figures(latencies.service, unexpected.service),
    direct: figures(latencies.direct, unexpected.direct),
    work: { tookP50: percentile(took, 0.5), tookP99: percentile(took, 0.99), matched: work.matched },
  };
}
