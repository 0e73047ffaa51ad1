/**
 * What every benchmark reports and where it goes: its section of bench/RESULTS.md (one shared writer), its summary
 * rows (kept in the section, machine-readable), the Summary table generated from every section's rows, and the run
 * (commit, machine, load). A run.ts exports its benchmark and calls runAlone() so that `node dist/bench/<name>/run.js`
 * still works on its own: it replaces its own section, and the Summary is generated anew from all sections.
 */
import { readFileSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
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

/**
 * A summary row as a section of bench/RESULTS.md keeps it: `unexpected` as written (`0`, `service: degraded ×3`), or
 * what stands in its place in rows transcribed from runs that did not count it (`not counted`).
 */
export type RecordedRow = Omit<SummaryRow, 'unexpected'> & { unexpected?: string };

/**
 * The line that holds a section's summary rows, machine-readable, at the section's end: an HTML comment, which
 * Markdown does not show. The Summary table is generated from these lines alone (summaryOf()), never edited by hand.
 */
const ROWS_LINE = /^<!-- summary rows: (.*) -->$/m;

export function rowsLine(rows: (SummaryRow | RecordedRow)[]): string {
  const recorded: RecordedRow[] = rows.map((row) => ({ ...row, unexpected: row.unexpected === undefined ? undefined : String(row.unexpected) }));
  return `<!-- summary rows: ${JSON.stringify(recorded)} -->`;
}

/** The rows a section keeps (none when it has no rows line). */
export function rowsOf(section: string): RecordedRow[] {
  const line = ROWS_LINE.exec(section);
  return line === null ? [] : (JSON.parse(line[1]!) as RecordedRow[]);
}

/** A report from the lines of a section (below its heading) and the summary rows, which the section keeps at its end. */
export function report(heading: string, lines: string[], rows: SummaryRow[]): BenchReport {
  return { heading, section: [heading, '', ...lines, '', rowsLine(rows)].join('\n'), rows };
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

/** Files the benchmarks write, relative to the repository's root. */
const BENCH_OUTPUTS = ['bench/RESULTS.md', 'bench/scale.svg'];

/** The commit checked out (with `+ uncommitted changes` when the work tree differs), or why it is not known. */
export function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dirname(RESULTS), encoding: 'utf8' }).trim();
    // What the benchmarks themselves write (this file, the scale plot) does not make the measured code another.
    const changed = ['status', '--porcelain', '--untracked-files=no', '--', ':/', ...BENCH_OUTPUTS.map((file) => `:(top,exclude)${file}`)];
    const dirty = execFileSync('git', changed, { cwd: dirname(RESULTS), encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'not known (no git checkout)';
  }
}

/** The first line of a section: which script, how, when, at which commit, on what, under which load (taken when the benchmark started). */
export function runLine(script: string, load: string, how = 'alone, or within `npm run bench`'): string {
  return `Run by \`node ${script}\` (${how}) on ${today()} at commit ${commit()}, ${machine()}; load average at the start ${load}.`;
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
export function summaryTable(reports: { heading: string; rows: (SummaryRow | RecordedRow)[] }[]): string {
  const lines = ['| benchmark | figure | this service | peer | ratio | target | unexpected answers | |', '|---|---|---|---|---|---|---|---|'];
  for (const report of reports) {
    for (const row of report.rows) {
      lines.push(`| ${report.heading.replace(/^## /, '')} | ${row.figure} | ${row.service} | ${row.peer} | ${row.ratio} | ${row.target} | ${String(row.unexpected ?? '–')} | ${verdict(row.met)} |`);
    }
  }
  return lines.join('\n');
}

export const SUMMARY_HEADING = '## Summary';

/**
 * The head of bench/RESULTS.md: what the file is and how its summary is made. Which run each section's figures
 * come from (commit, machine, load) is said in the section itself.
 */
export const HEAD = [
  TITLE,
  '',
  'Each section below is one benchmark\'s run, and its first lines name that run: the command, the date, the commit, the machine and the load average at its start. Figures side by side in one section were measured in the same run; figures of different sections may come from different runs and machines.',
  'The Summary is generated from the rows each section keeps at its end (an HTML comment, `<!-- summary rows: ... -->`, written by the benchmark\'s run), never edited by hand: a benchmark run rewrites it, and so does `npm run bench:summary`, which runs nothing (bench/results.ts summaryOf()).',
  'A figure is met only when it meets its target and nothing behind it went wrong: no answer other than the one the benchmark asked for, from the service or its peer (a search answered 200 with `degraded: true` included), and every indexing job it was measured over finished with every page done (column "unexpected answers"; `–` where a figure is not made of answers or jobs).',
  '',
].join('\n');

/** The Summary section of a RESULTS.md text, generated from the rows its other sections keep, in their order. */
export function summaryOf(text: string): string {
  const reports = [...sections(text)].filter(([heading]) => heading !== SUMMARY_HEADING).map(([heading, section]) => ({ heading, rows: rowsOf(section) }));
  return `${SUMMARY_HEADING}\n\n${summaryTable(reports)}\n`;
}

/** RESULTS.md text with its head and Summary made anew from its sections (the sections themselves unchanged). */
export function withSummary(text: string): string {
  const kept = [...sections(text)].filter(([heading]) => heading !== SUMMARY_HEADING).map(([, section]) => section.trimEnd());
  return `${[HEAD.trimEnd(), summaryOf(text).trimEnd(), ...kept].join('\n\n')}\n`;
}

/** Removes the section under `heading` from bench/RESULTS.md, if it has one; the Summary is made anew. */
export function removeSection(heading: string): void {
  const kept = [...sections(readResults())].filter(([h]) => h !== heading).map(([, section]) => section);
  writeFileSync(RESULTS, withSummary(kept.join('\n')));
}

/** Regenerates the head and the Summary of bench/RESULTS.md from its sections. */
export function writeSummary(): void {
  writeFileSync(RESULTS, withSummary(readResults()));
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
  writeSummary();
}
