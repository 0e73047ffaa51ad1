/** Figures the benchmarks take from samples and from /proc. */
import { readFileSync } from 'node:fs';

/** The q-quantile (0..1) of ascending `sorted` samples, by the nearest-rank rule; NaN when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** Resident set size of a process in bytes (all its threads), from /proc. */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
