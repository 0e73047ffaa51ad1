/** Figures the benchmarks take from samples, from /proc and from the kernel's TCP counters. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The q-quantile (0..1) of ascending `sorted` samples, by the nearest-rank rule; NaN when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** `bytes` in MiB, as a table shows them (`digits` after the point). */
export function mebibytes(bytes: number, digits = 1): string {
  return (bytes / 2 ** 20).toFixed(digits);
}

/** Resident set size of a process in bytes (all its threads), from /proc. */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** USER_HZ: the unit of the times in /proc/<pid>/stat on Linux. */
const CLOCK_TICKS_PER_S = 100;

/** Fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime. */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** CPU seconds (user and system, all threads) of a process, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/** CPU seconds (user and system) of the children of a process that have ended and been waited for. */
export function childrenCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  if (fields === undefined) throw new Error(`process ${pid} is gone`);
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_S;
}

/** CPU seconds (user and system) of one thread of a process (`tid` as in /proc/<pid>/task/<tid>). */
export function threadCpuSeconds(pid: number, tid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/** One OS thread of a process: its id, its name (/proc/<pid>/task/<tid>/comm) and CPU seconds so far. */
export interface ThreadCpu {
  tid: number;
  name: string;
  seconds: number;
}

/** CPU seconds of every thread of a process now (threads that end meanwhile are left out). */
export function threadsCpuSeconds(pid: number): ThreadCpu[] {
  const threads: ThreadCpu[] = [];
  for (const name of readdirSync(`/proc/${pid}/task`)) {
    const tid = Number(name);
    try {
      threads.push({ tid, name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), seconds: threadCpuSeconds(pid, tid) });
    } catch {
      // ended meanwhile
    }
  }
  return threads;
}

/**
 * Seconds the threads of a process have spent runnable but waiting for a core (the second field of
 * /proc/<pid>/task/<tid>/schedstat; threads that ended meanwhile are left out). With more busy threads than cores,
 * a request waits this long for the scheduler on top of its CPU time.
 */
export function runQueueWaitSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
    } catch {
      // ended meanwhile
    }
  }
  return ns / 1e9;
}

/**
 * CPU seconds (user and system, every thread) of a process and all its descendants, counting children that have
 * ended and been waited for: a forking server (Samba starts an smbd per client connection) is measured whole.
 */
export function treeCpuSeconds(rootPid: number): number {
  const processes = processTable();
  let total = 0;
  for (const [pid, { ticks }] of processes) if (descendsFrom(processes, pid, rootPid)) total += ticks;
  return total / CLOCK_TICKS_PER_S;
}

/** Every live process: its parent and its CPU ticks, its reaped children's included. */
export function processTable(): Map<number, { parent: number; ticks: number }> {
  const processes = new Map<number, { parent: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const fields = statFields(pid);
    if (!fields) continue;
    processes.set(pid, { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) });
  }
  return processes;
}

/** Whether `pid` is `rootPid` or one of its descendants in `processes`. */
export function descendsFrom(processes: ReadonlyMap<number, { parent: number }>, pid: number, rootPid: number): boolean {
  for (let p: number | undefined = pid; p !== undefined && p > 1; p = processes.get(p)?.parent) if (p === rootPid) return true;
  return false;
}

/**
 * TCP segments with data that process `pid` has sent to `port` on its open connections, retransmissions left out
 * (`ss -tinp` in the caller's network namespace). On loopback a message of up to 64 KiB leaves in one segment, so
 * the difference over some requests of the process counts the SMB messages they cost (a compound is one).
 */
export function segmentsSent(pid: number, port: number): number {
  const out = execFileSync('ss', ['-tinpH', `dport = :${port}`], { encoding: 'utf8' });
  let total = 0;
  let ours = false;
  // One line per connection naming its process, then an indented line with its counters.
  for (const line of out.split('\n')) {
    if (/^\S/.test(line)) ours = line.includes(`pid=${pid},`);
    else if (ours) total += Number(/data_segs_out:(\d+)/.exec(line)?.[1] ?? 0) - Number(/retrans:\d+\/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return total;
}

/** Peak resident set size of a process, sampled every `everyMs` until stopped. */
export function rssSampler(pid: number, everyMs: number): { stop(): number } {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, residentBytes(pid));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
