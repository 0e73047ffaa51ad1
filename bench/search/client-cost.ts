/**
 * What one search costs the calling process in each way of asking Elasticsearch, on the same body:
 *   node dist/bench/search/client-cost.js [rounds]
 * `client.search()` (the @elastic/elasticsearch API with its parameter handling), `client.transport.request()` with
 * the prepared body text (what WikiSearch does), and a plain undici Pool (no client at all). 8 searches in flight,
 * 3,000 per round after 200 to warm up, CPU time (user + system) of this process per search; the rounds interleave
 * the three, so load from elsewhere hits them alike. The viewer has 25 allow and 27 deny SIDs and three shares, like
 * a teacher with many groups. Needs the testbed's Elasticsearch; prints, writes nothing.
 */
import { Pool } from 'undici';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { parseSearchRequest, searchBodyJson, type Viewer } from '../../src/search/query.js';
import { SEARCH_FILTER_PATH } from '../../src/search/search.js';
import { readTestbedEnv } from '../../test/testbed/env.js';

const rounds = Number(process.argv[2] ?? 3);
const SEARCHES = 3_000;
const IN_FLIGHT = 8;

const env = await readTestbedEnv();
const client = createSearchClient({ nodes: [env.es.url] });
const pool = new Pool(env.es.url, { connections: IN_FLIGHT });
const sids = Array.from({ length: 25 }, (_, i) => `S-1-5-21-1004336348-1177238915-682003330-${1100 + i}`);
const shares = ['schule', 'verwaltung', 'lehrer'];
const viewer: Viewer = { allowSids: sids, denySids: [...sids, 'S-1-1-0', 'S-1-5-11'], shares, servers: new Map(shares.map((s) => [s, 'dc1'])) };
const request = parseSearchRequest({ q: 'Pythagoras' });
const body = () => searchBodyJson(request, viewer)!;
const path = `/${DEFAULT_ALIAS}/_search`;

const ways: Record<string, () => Promise<unknown>> = {
  'client.search()': () => client.search({ index: DEFAULT_ALIAS, ...JSON.parse(body()), filter_path: SEARCH_FILTER_PATH }),
  'client.transport.request(), prepared body': () => client.transport.request(
    { method: 'POST', path, querystring: `filter_path=${SEARCH_FILTER_PATH}`, body: body() }, { headers: { 'content-type': 'application/json' } }),
  'undici Pool, prepared body': async () => {
    const response = await pool.request({ method: 'POST', path: `${path}?filter_path=${SEARCH_FILTER_PATH}`, headers: { 'content-type': 'application/json' }, body: body() });
    return JSON.parse(await response.body.text());
  },
};

async function cpuPerSearchUs(search: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await search();
  const start = process.cpuUsage();
  let started = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (started++ < SEARCHES) await search();
  }));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / SEARCHES;
}

const figures = new Map<string, number[]>();
for (let round = 1; round <= rounds; round++) {
  for (const [name, search] of Object.entries(ways)) {
    const us = await cpuPerSearchUs(search);
    figures.set(name, [...(figures.get(name) ?? []), us]);
    console.log(`round ${round} ${name}: ${us.toFixed(0)} µs CPU per search`);
  }
}
for (const [name, us] of figures) console.log(`${name}: ${us.map((u) => u.toFixed(0)).join(', ')} µs (rounds)`);
await Promise.all([client.close(), pool.close()]);
