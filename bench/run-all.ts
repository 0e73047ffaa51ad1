/**
 * `npm run bench`: every benchmark one after the other against the testbed, each next to its peer in the same run,
 * then ONE summary table, and bench/RESULTS.md regenerated from this run alone (header, summary, each benchmark's
 * section). The soak (bench/soak) is not run here; its section, if RESULTS.md has one, is kept with its own date.
 * `npm run bench -- <name> ...` runs only the benchmarks named, and replaces only their sections and summary rows;
 * the scale bench (bench/scale, most of an hour) runs only so: `npm run bench -- scale`.
 *   npm run bench     (= build, testbed up, node dist/bench/run-all.js)
 */
import { writeFileSync } from 'node:fs';
import { folderDeletesBench } from './index/folder-deletes.js';
import { poolsBench } from './index/pools.js';
import { indexBench } from './index/run.js';
import { memoryBench } from './memory/run.js';
import { loadAverage, machine, readResults, RESULTS, sections, SOAK_HEADING, SUMMARY_HEADING, summaryRowsOf, summaryTable, writeSection, writeSummaryRows, type BenchReport, type Benchmark } from './results.js';
import { scaleBench } from './scale/run.js';
import { liveAclBench } from './search/live-acl.js';
import { relevanceBench } from './search/relevance.js';
import { searchBench } from './search/run.js';
import { smbBench } from './smb/run.js';
import { negotiateBench } from './negotiate/run.js';
import { sessionSetupBench } from './smb/session-setup.js';
import { webdavBench } from './webdav/run.js';
import { webhookBench } from './webhook/run.js';

const BENCHMARKS: Benchmark[] = [smbBench, sessionSetupBench, negotiateBench, webhookBench, searchBench, relevanceBench, liveAclBench, webdavBench, indexBench, poolsBench, folderDeletesBench, memoryBench];
/** Run only when named: each alone takes longer than all the others together. */
const BY_NAME_ONLY: Benchmark[] = [scaleBench];
const COMMAND = 'npm run bench';
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

/** A benchmark that threw: a section saying why, one MISSED row, so that the table shows it. */
function failed(benchmark: Benchmark, error: unknown): BenchReport {
  const message = error instanceof Error ? error.message : String(error);
  const heading = `## ${benchmark.name} (failed)`;
  return {
    heading,
    section: `${heading}\n\n\`node ${benchmark.script}\` failed in this run: ${message}\n`,
    rows: [{ figure: 'run failed', service: '–', peer: '–', ratio: '–', target: 'a completed run', met: false }],
  };
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

/** The benchmarks named on the command line; their sections and summary rows replace theirs in bench/RESULTS.md. */
async function runNamed(names: string[]): Promise<void> {
  const known = [...BENCHMARKS, ...BY_NAME_ONLY];
  const unknown = names.filter((name) => !known.some((b) => b.name === name));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(', ')}; the names: ${known.map((b) => b.name).join(', ')}`);
  const started = performance.now();
  const outcomes = await runEach(known.filter((b) => names.includes(b.name)), started);
  for (const { report } of outcomes) writeSection(report.heading, report.section);
  writeSummaryRows(outcomes.map((o) => o.report));
  console.log(`\n${summaryTable(outcomes.map((o) => o.report))}\n\n${outcomes.map((o) => o.benchmark.name).join(', ')} in ${clock(performance.now() - started)}; their sections and summary rows in bench/RESULTS.md replaced.`);
  process.exit(runFailed(outcomes) ? 1 : 0);
}

async function main(): Promise<void> {
  const date = new Date();
  const load = loadAverage();
  const started = performance.now();
  const previous = sections(readResults());
  const soak = previous.get(SOAK_HEADING);
  const outcomes = await runEach(BENCHMARKS, started);
  const total = performance.now() - started;
  // Sections no benchmark writes (the soak, the scale bench, written analyses such as a profile) are kept as they
  // were, and so are their summary rows.
  const produced = new Set([SUMMARY_HEADING, ...outcomes.map((o) => o.report.heading)]);
  const keptSections = [...previous].filter(([heading]) => !produced.has(heading));
  const kept = keptSections.map(([, section]) => `${section.trimEnd()}\n`);
  const keptRows = summaryRowsOf(previous.get(SUMMARY_HEADING) ?? '', new Set(keptSections.map(([heading]) => heading)));
  const table = [summaryTable(outcomes.map((o) => o.report)), ...keptRows].join('\n');
  const text = [
    '# Benchmark results',
    '',
    `Generated by \`${COMMAND}\` on ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}; load average at the start ${load}.`,
    `The benchmarks ran one after the other on the testbed, each next to its peer in the same run, in ${clock(total)}: ${outcomes.map((o) => `${o.benchmark.name} ${clock(o.ms)}`).join(', ')}.`,
    'Other engineers\' test suites may have run on the same 2-core machine meanwhile; each section gives the load average at its own start.',
    'A figure is met only when it meets its target and neither the service nor its peer gave an answer other than the one the benchmark asked for in the rounds behind it (column "unexpected answers"; `–` where a figure is not made of answers); such answers are no throughput either.',
    `Not run here, only by name (\`npm run bench -- <name>\`): ${BY_NAME_ONLY.map((b) => b.name).join(', ')}; their sections and summary rows, if any, are kept from their own runs, each dated in its section.`,
    ...(soak === undefined ? [] : [`The Soak section is not re-run here: it is kept from the \`npm run soak\` of ${/ on (\d{4}-\d{2}-\d{2})/.exec(soak)?.[1] ?? 'an earlier date'}.`]),
    '',
    SUMMARY_HEADING,
    '',
    table,
    '',
    ...outcomes.map((o) => o.report.section.trimEnd() + '\n'),
    ...kept,
  ].join('\n');
  writeFileSync(RESULTS, text);
  console.log(`\n${table}\n\nAll benchmarks in ${clock(total)}; bench/RESULTS.md regenerated.`);
  // Clients the benchmarks left (pools, agents) must not keep the process alive.
  process.exit(runFailed(outcomes) ? 1 : 0);
}

const named = process.argv.slice(2);
await (named.length > 0 ? runNamed(named) : main());
