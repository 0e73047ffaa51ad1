/**
 * What rendering a page costs the indexer pool's thread, by the young generation the thread is given (V8's
 * `maxYoungGenerationSizeMb`; the pools' is POOL_HEAP_LIMITS in src/runtime/heap-limits.ts), for this build and,
 * with RENDERBENCH_BASELINE=<a built checkout>, an earlier one:
 *   node dist/bench/index/render-cost.js      (RENDERBENCH_PAGES, default 500; RENDERBENCH_YOUNG_MB, default 2,8)
 * Each cell is a fresh worker thread (render-worker.ts) rendering the index bench's seeded pages (bench/index/seed.ts:
 * 1–20 KiB, log-uniform) as write-batch.ts does, timed by the thread's own CPU; the cells alternate, ROUNDS times, so
 * that a drift of the host's speed falls on all of them. Needs no testbed. Writes its section "## Rendering pages".
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { POOL_HEAP_LIMITS } from '../../src/runtime/heap-limits.js';
import { loadAverage, report, runAlone, runLine, type BenchReport, type Benchmark } from '../results.js';
import { percentile } from '../stats.js';
import type { RenderWork } from './render-worker.js';

const HEADING = '## Rendering pages';
const SCRIPT = 'dist/bench/index/render-cost.js';
const PAGES = Number(process.env['RENDERBENCH_PAGES'] ?? 500);
const YOUNG_MB = (process.env['RENDERBENCH_YOUNG_MB'] ?? '2,8').split(',').map(Number);
const PASSES = 4;
const ROUNDS = 3;

/** A build: the compiled tree whose renderer is timed. */
interface Build {
  label: string;
  dist: string;
}

function builds(): Build[] {
  const own: Build = { label: 'this build', dist: new URL('../../', import.meta.url).pathname };
  const checkout = process.env['RENDERBENCH_BASELINE'];
  if (checkout === undefined) return [own];
  const commit = execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  return [own, { label: `earlier build (${commit})`, dist: join(checkout, 'dist') }];
}

interface Cell {
  build: Build;
  youngMb: number;
  /** The thread's CPU µs per page, one per round. */
  rounds: number[];
}

function renderInThread(build: Build, youngMb: number): Promise<number> {
  const work: RenderWork = {
    documentModule: pathToFileURL(join(build.dist, 'src/wiki/document.js')).href,
    bulkModule: pathToFileURL(join(build.dist, 'src/indexing/indexer/bulk.js')).href,
    pages: PAGES,
    passes: PASSES,
  };
  const worker = new Worker(new URL('./render-worker.js', import.meta.url), {
    workerData: work,
    resourceLimits: { ...POOL_HEAP_LIMITS, maxYoungGenerationSizeMb: youngMb },
  });
  return new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`render worker exited with ${code} before it answered`)));
  }).finally(() => worker.terminate());
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const cells: Cell[] = builds().flatMap((build) => YOUNG_MB.map((youngMb) => ({ build, youngMb, rounds: [] })));
  for (let round = 0; round < ROUNDS; round++) {
    for (const cell of round % 2 === 0 ? cells : [...cells].reverse()) {
      cell.rounds.push(await renderInThread(cell.build, cell.youngMb));
      console.log(`${cell.build.label}, young generation ${cell.youngMb} MiB: ${cell.rounds.at(-1)!.toFixed(1)} µs a page`);
    }
  }
  const lines = [
    runLine(SCRIPT, load),
    `The index bench's seeded pages (${PAGES}, 1–20 KiB of Markdown, bench/index/seed.ts) rendered as the indexer pool renders them (src/indexing/indexer/write-batch.ts: Markdown to the document, the document to its \`_bulk\` source), in a fresh worker thread per cell with the pools' old-generation cap and the young generation named; one pass to warm up, then ${PASSES} timed by the thread's own CPU (user and system); the cells alternate, ${ROUNDS} rounds. The pools' young generation: ${POOL_HEAP_LIMITS.maxYoungGenerationSizeMb} MiB.`,
    '',
    '| build | young generation | CPU µs per page, rounds | median |',
    '|---|---:|---|---:|',
    ...cells.map((c) => `| ${c.build.label} | ${c.youngMb} MiB | ${c.rounds.map((us) => us.toFixed(1)).join(', ')} | ${percentile([...c.rounds].sort((a, b) => a - b), 0.5).toFixed(1)} |`),
  ];
  return report(HEADING, lines, []);
}

export const renderBench: Benchmark = { name: 'render', script: SCRIPT, run };

await runAlone(import.meta.url, renderBench);
