/**
 * Where a piece of work's CPU goes on the whole machine, function by function: a sampling profile of every core
 * (`perf record -a`, no call graphs) taken around the work, folded into samples per process (the service, smbd,
 * Elasticsearch, anything else) and function. Two of them, each divided by its units of work, tell which functions
 * grew faster than the work. Needs perf (Debian's linux-perf) and root; without them `startSystemProfile` says why
 * and the caller goes on without one.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { layout } from '../test/testbed/layout.js';
import { pidIn } from './index/work-cost.js';
import { descendsFrom, processTable } from './stats.js';

/** Samples per second and core: coarse, so that perf itself stays out of the figures. */
const FREQUENCY = 99;

export type ProcessKind = 'service' | 'smbd' | 'Elasticsearch' | 'other';

export interface SystemProfile {
  /** The samples each process kind and function had. */
  samples: Map<string, { kind: ProcessKind; fn: string; count: number }>;
}

export interface RunningProfile {
  stop(): Promise<SystemProfile>;
}

/** Why no profile can be taken here, or undefined when one can. */
export function systemProfileUnavailable(): string | undefined {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'perf is not installed (Debian: linux-perf)';
  }
  return process.getuid?.() === 0 ? undefined : 'perf needs root to sample every process';
}

/** Starts sampling every core; `servicePid` is the service whose work is profiled. */
export async function startSystemProfile(servicePid: number): Promise<RunningProfile> {
  const dir = mkdtempSync(join(tmpdir(), 'system-profile-'));
  const data = join(dir, 'perf.data');
  const perf = spawn('perf', ['record', '-a', '-F', String(FREQUENCY), '-o', data], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  perf.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  // perf prints nothing when it is ready; a short wait keeps the first moments of the work in the profile.
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (perf.exitCode !== null) throw new Error(`perf record ended at once: ${said.trim()}`);
  return {
    async stop() {
      const kindOf = processKinds(servicePid);
      await stopped(perf);
      try {
        const script = execFileSync('perf', ['script', '-i', data, '-F', 'comm,pid,tid,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
        return { samples: foldSamples(script, kindOf) };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function stopped(perf: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    perf.once('exit', () => resolve());
    perf.kill('SIGINT');
  });
}

/** The kind of a sampled process: by the process tree at the end of the work, and for an smbd gone since, its name. */
function processKinds(servicePid: number): (pid: number, comm: string) => ProcessKind {
  const processes = processTable();
  const samba = pidIn(layout.samba.pidFile);
  const elasticsearch = pidIn(layout.elasticsearch.pidFile);
  return (pid, comm) => {
    if (descendsFrom(processes, pid, servicePid)) return 'service';
    if (descendsFrom(processes, pid, elasticsearch)) return 'Elasticsearch';
    if (descendsFrom(processes, pid, samba) || comm.startsWith('smbd')) return 'smbd';
    return 'other';
  };
}

/** One line of `perf script -F comm,pid,tid,ip,sym,dso`: `  smbd 4242/4242  7f1b18393cf7 memcpy (/usr/lib/…/libc.so.6)`. */
const SAMPLE_LINE = /^\s*(.*?)\s+(\d+)\/\d+\s+[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)$/;

/** Samples by process kind and function (`symbol [object]`; code a JIT wrote has no symbol perf can name). */
export function foldSamples(script: string, kindOf: (pid: number, comm: string) => ProcessKind): SystemProfile['samples'] {
  const samples: SystemProfile['samples'] = new Map();
  for (const line of script.split('\n')) {
    const match = SAMPLE_LINE.exec(line);
    if (!match) continue;
    const [, comm, pid, sym, dso] = match as unknown as [string, string, string, string, string];
    if (pid === '0') continue; // the idle task: a core with nothing to do
    const object = /^\/tmp\/perf-\d+\.map$/.test(dso) || dso.startsWith('[JIT]') ? 'JIT code' : basename(dso).replace(/^\[(.*)\]$/, '$1');
    const fn = sym === '[unknown]' ? `(unnamed) [${object}]` : `${sym} [${object}]`;
    const kind = kindOf(Number(pid), comm);
    const key = `${kind}\u0000${fn}`;
    const entry = samples.get(key);
    if (entry) entry.count++;
    else samples.set(key, { kind, fn, count: 1 });
  }
  return samples;
}

/** CPU µs per unit of work that a profile's samples stand for. */
function microsPer(count: number, units: number): number {
  return ((count / FREQUENCY) * 1e6) / units;
}

export interface FunctionGrowth {
  kind: ProcessKind;
  fn: string;
  /** CPU µs per unit of work in the first and in the second profile. */
  before: number;
  after: number;
}

/** The functions whose CPU per unit of work grew most from `first` to `second`, in µs per unit. */
export function grewMost(first: { profile: SystemProfile; units: number }, second: { profile: SystemProfile; units: number }, top: number): FunctionGrowth[] {
  const keys = new Set([...first.profile.samples.keys(), ...second.profile.samples.keys()]);
  const rows = [...keys].map((key) => {
    const entry = (second.profile.samples.get(key) ?? first.profile.samples.get(key))!;
    return {
      kind: entry.kind,
      fn: entry.fn,
      before: microsPer(first.profile.samples.get(key)?.count ?? 0, first.units),
      after: microsPer(second.profile.samples.get(key)?.count ?? 0, second.units),
    };
  });
  return rows.sort((a, b) => b.after - b.before - (a.after - a.before)).slice(0, top);
}

/** CPU µs per unit of work of each process kind, from a profile's samples. */
export function perKind(profile: SystemProfile, units: number): Record<ProcessKind, number> {
  const totals: Record<ProcessKind, number> = { service: 0, smbd: 0, Elasticsearch: 0, other: 0 };
  for (const { kind, count } of profile.samples.values()) totals[kind] += count;
  for (const kind of Object.keys(totals) as ProcessKind[]) totals[kind] = microsPer(totals[kind], units);
  return totals;
}
