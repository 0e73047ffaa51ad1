/**
 * What every benchmark reports and where it goes: its section of bench/RESULTS.md (one shared writer), its summary
 * rows for the table of `npm run bench`, and the machine it ran on. A run.ts exports its benchmark and calls
 * runAlone() so that `node dist/bench/<name>/run.js` still works on its own and updates only its own section.
 */
import { readFileSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const RESULTS = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
const TITLE = '# Benchmark results';
/** The soak's section (bench/soak): written by `npm run soak` only, kept as it is when `npm run bench` regenerates the file. */
export const SOAK_HEADING = '## Soak';

/**
 * Answers that the targets behind a figure gave although the benchmark asked for others (a 405 to a PUT, a 503 where
 * a 401 was the point, a connection that broke), counted by target and status. They are no throughput, and a figure
 * with any is not met, whatever its ratio: a fast error must not read as a fast server.
 */
export class Unexpected {
  private readonly counts = new Map<string, Map<string, number>>();

  /** Counts `n` answers of `target` with `status`: a status code, or what came instead (`socket error`). */
  add(target: string, status: number | string, n = 1): this {
    if (n <= 0) return this;
    const byStatus = this.counts.get(target) ?? new Map<string, number>();
    byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + n);
    this.counts.set(target, byStatus);
    return this;
  }

  /** The counts of both, as one (a ratio row stands for its service's and its peer's answers). */
  with(other: Unexpected): Unexpected {
    const both = new Unexpected();
    for (const source of [this, other]) for (const [target, byStatus] of source.counts) for (const [status, n] of byStatus) both.add(target, status, n);
    return both;
  }

  get total(): number {
    let sum = 0;
    for (const byStatus of this.counts.values()) for (const n of byStatus.values()) sum += n;
    return sum;
  }

  /** `0`, or each target with its statuses: `rclone serve webdav: 405 ×36`. */
  toString(): string {
    if (this.total === 0) return '0';
    return [...this.counts].map(([target, byStatus]) => `${target}: ${[...byStatus].map(([status, n]) => `${status} ×${n}`).join(', ')}`).join('; ');
  }
}

/** One line of the summary table: a figure of the service next to the same figure of its peer. */
export interface SummaryRow {
  figure: string;
  service: string;
  peer: string;
  ratio: string;
  target: string;
  /** The unexpected answers behind the figure; absent where the figure is not made of answers (memory, CPU time). */
  unexpected?: Unexpected;
  /** The verdict: the figure meets its target and no answer behind it was unexpected (see judged()). */
  met: boolean;
}

/** The one place a verdict is made: a row is met when its figure meets the target and no answer behind it was unexpected. */
export function judged(row: Omit<SummaryRow, 'met' | 'unexpected'>, figureMet: boolean, unexpected?: Unexpected): SummaryRow {
  return { ...row, unexpected, met: figureMet && (unexpected?.total ?? 0) === 0 };
}

export interface BenchReport {
  /** The section's heading, `## ...`, which also names the benchmark in the summary. */
  heading: string;
  /** The section's markdown, heading included. */
  section: string;
  rows: SummaryRow[];
}

/** A report from the lines of a section (below its heading) and the summary rows. */
export function report(heading: string, lines: string[], rows: SummaryRow[]): BenchReport {
  return { heading, section: [heading, '', ...lines].join('\n'), rows };
}

export interface Benchmark {
  name: string;
  script: string;
  run(): Promise<BenchReport>;
}

/**
 * A row comparing one figure of the service with the peer's: their ratio against a goal, `≥ goal ×` when more is
 * better (throughput), `≤ goal ×` when less is (time, latency). `unexpected`: the answers of both that the benchmark
 * did not ask for (service and peer alike), when the figure is made of answers.
 */
export function ratioRow(
  figure: string, service: number, peer: number, peerName: string, goal: { atLeast: number } | { atMost: number }, digits = 0, unexpected?: Unexpected,
): SummaryRow {
  const ratio = service / peer;
  // Small figures (rclone's 0.005 PROPFIND/s) keep two significant digits instead of rounding to 0.
  const format = (n: number) => (n !== 0 && Math.abs(n) < 10 ** -digits ? n.toPrecision(2) : n.toFixed(digits));
  return judged({
    figure,
    service: format(service),
    peer: `${format(peer)} (${peerName})`,
    ratio: `${ratio.toFixed(2)} ×`,
    target: 'atLeast' in goal ? `≥ ${goal.atLeast} ×` : `≤ ${goal.atMost} ×`,
  }, 'atLeast' in goal ? ratio >= goal.atLeast : ratio <= goal.atMost, unexpected);
}

export const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');

/** A row as a sentence for a benchmark's section, with the unexpected answers that decided it when there were any. */
export function verdictLine(row: SummaryRow): string {
  const spoilt = row.unexpected !== undefined && row.unexpected.total > 0 ? ` (unexpected answers: ${row.unexpected})` : '';
  return `${row.figure}: ${row.service} vs ${row.peer}, ${row.ratio}, target ${row.target} ${verdict(row.met)}${spoilt}.`;
}

export const today = (): string => new Date().toISOString().slice(0, 10);
export const loadAverage = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** CPU model, cores, RAM and Node version. */
export function machine(): string {
  const cores = cpus();
  return `${cores.length} × ${cores[0]?.model.trim() ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`;
}

/** The first line of a section: which script, how, when, on what, under which load (taken when the benchmark started). */
export function runLine(script: string, load: string, how = 'alone, or within `npm run bench`'): string {
  return `Run by \`node ${script}\` (${how}) on ${today()}, ${machine()}; load average at the start ${load}.`;
}

/** The sections of a RESULTS.md text by heading, in order (the title and anything before the first `## ` left out). */
export function sections(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const parts = text.split(/^(?=## )/m).filter((part) => part.startsWith('## '));
  for (const part of parts) found.set(part.split('\n', 1)[0]!.trim(), `${part.trimEnd()}\n`);
  return found;
}

export function readResults(): string {
  return existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : `${TITLE}\n`;
}

/** Replaces the section under `heading` in bench/RESULTS.md, or appends it; other sections stay as they are. */
export function writeSection(heading: string, section: string): void {
  const text = readResults();
  const start = text.search(new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  if (start === -1) {
    writeFileSync(RESULTS, `${text.trimEnd()}\n\n${section.trimEnd()}\n`);
    return;
  }
  const next = text.indexOf('\n## ', start + heading.length);
  const rest = next === -1 ? '' : `\n${text.slice(next + 1)}`;
  writeFileSync(RESULTS, `${text.slice(0, start)}${section.trimEnd()}\n${rest}`);
}

/** The summary table: one row per figure, benchmark named by its heading; `–` where a figure is not made of answers. */
export function summaryTable(reports: { heading: string; rows: SummaryRow[] }[]): string {
  const lines = ['| benchmark | figure | this service | peer | ratio | target | unexpected answers | |', '|---|---|---|---|---|---|---|---|'];
  for (const report of reports) {
    for (const row of report.rows) {
      lines.push(`| ${report.heading.replace(/^## /, '')} | ${row.figure} | ${row.service} | ${row.peer} | ${row.ratio} | ${row.target} | ${row.unexpected?.toString() ?? '–'} | ${verdict(row.met)} |`);
    }
  }
  return lines.join('\n');
}

export const SUMMARY_HEADING = '## Summary';

/** The benchmark a line of the summary table is a row of (its first cell), '' for any other line. */
function rowBenchmark(line: string): string {
  return line.startsWith('| ') && !line.startsWith('|---') ? line.split('|')[1]!.trim() : '';
}

/** The rows that a Summary section holds for the benchmarks headed `headings` (`## ...`). */
export function summaryRowsOf(summary: string, headings: Set<string>): string[] {
  return summary.split('\n').filter((line) => headings.has(`## ${rowBenchmark(line)}`));
}

/**
 * Puts the rows of `reports` into the summary table of bench/RESULTS.md in place of their earlier rows, the other
 * benchmarks' rows left as they are (a benchmark run by name alone: `npm run bench -- scale`).
 */
export function writeSummaryRows(reports: BenchReport[]): void {
  const table = summaryTable(reports).split('\n');
  const headings = new Set(reports.map((r) => r.heading));
  const previous = sections(readResults()).get(SUMMARY_HEADING);
  const lines = (previous ?? `${SUMMARY_HEADING}\n`).trimEnd().split('\n').filter((line) => !headings.has(`## ${rowBenchmark(line)}`));
  const tableEnd = lines.findLastIndex((line) => line.startsWith('|')) + 1;
  if (tableEnd === 0) lines.push('', ...table);
  else lines.splice(tableEnd, 0, ...table.slice(2));
  writeSection(SUMMARY_HEADING, `${lines.join('\n')}\n`);
}

/** Whether this module URL is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(realpathSync(script)).href === moduleUrl;
}

/** When `moduleUrl` is the script being run: runs the benchmark, prints its section and summary, writes its section. */
export async function runAlone(moduleUrl: string, benchmark: Benchmark): Promise<void> {
  if (!isMain(moduleUrl)) return;
  const report = await benchmark.run();
  console.log(`\n${report.section}\n${summaryTable([report])}`);
  writeSection(report.heading, report.section);
}
