/**
 * `npm run bench`: every benchmark one after the other against the testbed, each next to its peer in the same run,
 * then bench/RESULTS.md with this run's sections in place of their earlier ones and the Summary generated from every
 * section's rows. Sections no benchmark of this run writes (the soak, bench/soak; the scale bench; written analyses)
 * are kept as they are, each naming its own run. `npm run bench -- <name> ...` runs only the benchmarks named and
 * replaces only their sections; the scale bench (bench/scale, most of an hour) runs only so: `npm run bench -- scale`.
 * `npm run bench:summary` (node dist/bench/run-all.js summary) runs nothing: it regenerates the Summary from the
 * sections' rows (results.ts).
 *   npm run bench     (= build, testbed up, node dist/bench/run-all.js)
 */
import { folderDeletesBench } from './index/folder-deletes.js';
import { poolsBench } from './index/pools.js';
import { jobCostBench } from './index/job-cost.js';
import { threadStartBench } from './threads/start.js';
import { renderBench } from './index/render-cost.js';
import { indexBench } from './index/run.js';
import { memoryBench } from './memory/run.js';
import { loadAverage, removeSection, report, rowsOf, summaryTable, writeSection, writeSummary, type BenchReport, type Benchmark } from './results.js';
import { scaleBench } from './scale/run.js';
import { clauseCostBench } from './search/clause-cost.js';
import { countCostBench } from './search/count-cost.js';
import { liveAclBench } from './search/live-acl.js';
import { relevanceBench } from './search/relevance.js';
import { searchBench } from './search/run.js';
import { smbBench } from './smb/run.js';
import { negotiateBench } from './negotiate/run.js';
import { sessionSetupBench } from './smb/session-setup.js';
import { webdavBench } from './webdav/run.js';
import { webhookBench } from './webhook/run.js';
import { severalProxiesBench } from './several-proxies/run.js';

const BENCHMARKS: Benchmark[] = [smbBench, sessionSetupBench, negotiateBench, webhookBench, severalProxiesBench, searchBench, relevanceBench, clauseCostBench, countCostBench, liveAclBench, webdavBench, indexBench, poolsBench, jobCostBench, renderBench, folderDeletesBench, memoryBench, threadStartBench];
/** Run only when named: each alone takes longer than all the others together. */
const BY_NAME_ONLY: Benchmark[] = [scaleBench];
/** How often a running benchmark is reported as still running. */
const PROGRESS_MS = 60_000;

const clock = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

interface Outcome {
  benchmark: Benchmark;
  report: BenchReport;
  ms: number;
}

const failedHeading = (benchmark: Benchmark) => `## ${benchmark.name} (failed)`;

/** A benchmark that threw: a section saying why, one MISSED row, so that the table shows it. */
function failed(benchmark: Benchmark, error: unknown): BenchReport {
  const message = error instanceof Error ? error.message : String(error);
  return report(failedHeading(benchmark), [`\`node ${benchmark.script}\` failed in this run: ${message}`], [
    { figure: 'run failed', service: '–', peer: '–', ratio: '–', target: 'a completed run', met: false },
  ]);
}

async function runEach(benchmarks: Benchmark[], started: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const [i, benchmark] of benchmarks.entries()) {
    const t0 = performance.now();
    const progress = `[${i + 1}/${benchmarks.length}] ${benchmark.name}`;
    console.log(`\n${progress}: started at ${clock(t0 - started)}, load average ${loadAverage()}`);
    const ticker = setInterval(() => console.log(`${progress}: running for ${clock(performance.now() - t0)} (total ${clock(performance.now() - started)})`), PROGRESS_MS);
    let report: BenchReport;
    try {
      report = await benchmark.run();
    } catch (error) {
      console.error(error);
      report = failed(benchmark, error);
    } finally {
      clearInterval(ticker);
    }
    const ms = performance.now() - t0;
    outcomes.push({ benchmark, report, ms });
    console.log(`${progress}: done in ${clock(ms)} (total ${clock(performance.now() - started)})`);
  }
  return outcomes;
}

const runFailed = (outcomes: Outcome[]) => outcomes.some((o) => o.report.rows.some((r) => r.figure === 'run failed'));

/**
 * Runs `benchmarks` and puts their sections into bench/RESULTS.md in place of their earlier ones (new ones at the
 * end), then generates the Summary from every section's rows.
 */
async function runAndRecord(benchmarks: Benchmark[]): Promise<void> {
  const started = performance.now();
  const outcomes = await runEach(benchmarks, started);
  for (const { benchmark, report } of outcomes) {
    writeSection(report.heading, report.section);
    // A run that failed before left a section saying so; this one has its own now.
    if (report.heading !== failedHeading(benchmark)) removeSection(failedHeading(benchmark));
  }
  writeSummary();
  console.log(`\n${summaryTable(outcomes.map((o) => ({ heading: o.report.heading, rows: rowsOf(o.report.section) })))}\n\n${outcomes.map((o) => `${o.benchmark.name} ${clock(o.ms)}`).join(', ')}; in all ${clock(performance.now() - started)}. Their sections in bench/RESULTS.md replaced, its Summary generated anew.`);
  // Clients the benchmarks left (pools, agents) must not keep the process alive.
  process.exit(runFailed(outcomes) ? 1 : 0);
}

/** The benchmarks named on the command line, or `summary`: the Summary regenerated, nothing run. */
async function runNamed(names: string[]): Promise<void> {
  if (names.length === 1 && names[0] === 'summary') {
    writeSummary();
    console.log('bench/RESULTS.md: Summary generated from the sections\' rows.');
    return;
  }
  const known = [...BENCHMARKS, ...BY_NAME_ONLY];
  const unknown = names.filter((name) => !known.some((b) => b.name === name));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(', ')}; the names: ${known.map((b) => b.name).join(', ')}, or summary alone`);
  await runAndRecord(known.filter((b) => names.includes(b.name)));
}

const named = process.argv.slice(2);
await (named.length > 0 ? runNamed(named) : runAndRecord(BENCHMARKS));
