/**
 * What the search benches that time query variants on a scratch index share (clause-cost.ts, count-cost.ts): sizes
 * and rounds from the environment, the index grown page by page through the sizes, each query's variants timed in
 * random order by Elasticsearch's own `took`, the index deleted afterwards (also when the run fails), and a failure
 * said in one line.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { silentLog } from '../../src/common/logger.js';
import { bulkWriterOn } from '../../src/indexing/indexer/write-batch.js';
import { IndexWriter } from '../../src/indexing/reconciler/index-writer.js';
import { createSearchClient } from '../../src/search/client.js';
import { describeSearchError } from '../../src/search/search-failure.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { mean } from '../relevance/metrics.js';
import { loadAverage, report, type BenchReport, type Benchmark } from '../results.js';
import { percentile } from '../stats.js';

/** `name` from the environment (else `fallback`): ascending page counts, the index grown from one to the next. */
function ascendingSizes(name: string, fallback: string): number[] {
  const spelled = process.env[name] ?? fallback;
  const pages = spelled.split(',').map(Number);
  if (pages.some((n, i) => !Number.isInteger(n) || n <= 0 || (i > 0 && n <= pages[i - 1]!))) {
    throw new Error(`${name}: '${spelled}' is not ascending page counts`);
  }
  return pages;
}

/** `name` from the environment (else `fallback`): how often each query's variants are searched at each size. */
function roundsFrom(name: string, fallback: number): number {
  const spelled = process.env[name] ?? String(fallback);
  const n = Number(spelled);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}: '${spelled}' is not a positive whole number`);
  return n;
}

/** Pages one after another, page n the same in every run. */
export interface PageSource {
  /** Pages made so far. */
  readonly made: number;
  next(): { id: string; source: string };
}

const BATCH = 2_000;

/** Adds pages of `pages` to `index` until it holds `size`, then makes them searchable. */
async function growTo(client: Client, index: string, pages: PageSource, size: number): Promise<void> {
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { index }, maxOperations: BATCH, log: silentLog });
  while (pages.made < size) {
    const { id, source } = pages.next();
    await writer.upsert(id, source);
  }
  await writer.flush();
  if (writer.counts.rejected > 0) throw new Error(`${writer.counts.rejected} scratch pages rejected`);
  await client.indices.refresh({ index });
}

interface SearchAnswer {
  took: number;
  timed_out: boolean;
  _shards: { failed: number };
  hits: { total: { value: number; relation: 'eq' | 'gte' } };
}

async function search(client: Client, index: string, body: string): Promise<SearchAnswer> {
  const answer = await client.transport.request<SearchAnswer>({ method: 'POST', path: `/${index}/_search`, body }, { headers: { 'content-type': 'application/json' } });
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

/** A variant's figures at one size: `took` of every search, and the pages each query matched (`hits.total`). */
export interface VariantFigures {
  took: number[];
  hits: { value: number; relation: 'eq' | 'gte' }[];
}

/**
 * One warm-up search per body, then `rounds` rounds of every query (`bodies`: per query, each variant's body as JSON
 * text), a query's variants in random order each round.
 */
async function timeVariants<K extends string>(client: Client, index: string, bodies: Map<K, string>[], rounds: number): Promise<Record<K, VariantFigures>> {
  const keys = [...bodies[0]!.keys()];
  for (const byVariant of bodies) for (const body of byVariant.values()) await search(client, index, body);
  const figures = Object.fromEntries(keys.map((key): [K, VariantFigures] => [key, { took: [], hits: [] }])) as Record<K, VariantFigures>;
  for (let round = 0; round < rounds; round++) {
    for (const [query, byVariant] of bodies.entries()) {
      for (const key of shuffled(keys)) {
        const answer = await search(client, index, byVariant.get(key)!);
        figures[key].took.push(answer.took);
        figures[key].hits[query] = answer.hits.total;
      }
    }
  }
  return figures;
}

/** `took` as the tables give it: p50 / p99 / mean, ms. */
export function tookCell(took: readonly number[]): string {
  const sorted = [...took].sort((a, b) => a - b);
  return `${percentile(sorted, 0.5)} / ${percentile(sorted, 0.99)} / ${mean(sorted).toFixed(2)}`;
}

/** A count as the tables give it. */
export const count = (n: number): string => n.toLocaleString('en');

/** Pages matched as the tables give them: `10,000+` when Elasticsearch stopped counting. */
export const matchedCell = (hits: VariantFigures['hits'][number]): string => `${count(hits.value)}${hits.relation === 'gte' ? '+' : ''}`;

/** The index at one size, and each variant's figures there. */
export interface SizeRun<K extends string> {
  pages: number;
  megabytes: number;
  segments: number;
  figures: Record<K, VariantFigures>;
}

/** One scratch-index benchmark: what it builds, what it searches, and how it reports. */
export interface ScratchBench<K extends string, P extends PageSource = PageSource> {
  name: string;
  script: string;
  heading: string;
  index: string;
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
  /** Its environment variables' prefix: `<prefix>_SIZES`, `<prefix>_ROUNDS`. */
  envPrefix: string;
  defaultSizes: string;
  defaultRounds: number;
  pages(): P;
  /** Per query, each variant's body as JSON text. */
  bodies(): Map<K, string>[];
  /** Done at each size after the pages are searchable and before they are searched (a force merge, say). */
  settle?(client: Client, pages: P): Promise<void>;
  section(load: string, runs: SizeRun<K>[], rounds: number): string[];
}

async function measureSizes<K extends string, P extends PageSource>(client: Client, bench: ScratchBench<K, P>, pageCounts: number[], rounds: number): Promise<SizeRun<K>[]> {
  const { index } = bench;
  const runs: SizeRun<K>[] = [];
  await client.indices.delete({ index, ignore_unavailable: true });
  try {
    await client.indices.create({ index, settings: bench.settings, mappings: bench.mappings });
    const pages = bench.pages();
    const bodies = bench.bodies();
    for (const size of pageCounts) {
      const started = performance.now();
      await growTo(client, index, pages, size);
      await bench.settle?.(client, pages);
      console.log(`${size} pages indexed (${((performance.now() - started) / 1000).toFixed(0)} s); measuring ${rounds} rounds`);
      const figures = await timeVariants(client, index, bodies, rounds);
      const { _all: { primaries } } = await client.indices.stats({ index, metric: ['docs', 'store', 'segments'] });
      runs.push({ pages: primaries!.docs!.count, megabytes: primaries!.store!.size_in_bytes / 1e6, segments: primaries!.segments!.count, figures });
    }
  } finally {
    await client.indices.delete({ index, ignore_unavailable: true })
      .catch((error: unknown) => console.error(`could not delete the scratch index ${index}: ${describeSearchError(error).error}`));
  }
  return runs;
}

/** `bench` as a benchmark of bench/results.ts. */
export function scratchBenchmark<K extends string, P extends PageSource>(bench: ScratchBench<K, P>): Benchmark {
  const run = async (): Promise<BenchReport> => {
    const pageCounts = ascendingSizes(`${bench.envPrefix}_SIZES`, bench.defaultSizes);
    const rounds = roundsFrom(`${bench.envPrefix}_ROUNDS`, bench.defaultRounds);
    const env = await readTestbedEnv();
    const load = loadAverage();
    // A force merge, or growing to the largest size, takes minutes.
    const client = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 600_000 });
    try {
      return report(bench.heading, bench.section(load, await measureSizes(client, bench, pageCounts, rounds), rounds), []);
    } catch (error) {
      // Elasticsearch errors carry the whole request body; say what failed in one line instead.
      throw new Error(`${bench.name} bench failed: ${describeSearchError(error).error}`);
    } finally {
      await client.close();
    }
  };
  return { name: bench.name, script: bench.script, run };
}
