/**
 * Where a piece of the index benchmark's work goes on this one machine, where the service, Samba and
 * Elasticsearch share the cores: the CPU seconds of each (Samba with every smbd it forked), the SMB2 requests
 * Samba counted (its profiling counters, switched on for the run with smbcontrol), and the bytes read from disk,
 * read before and after.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { layout } from '../../test/testbed/layout.js';
import { threadsCpuSeconds, treeCpuSeconds, type ThreadCpu } from '../stats.js';

export interface WorkCost {
  /** CPU seconds. */
  service: number;
  /**
   * The service's CPU seconds by thread name (/proc/<pid>/task/<tid>/comm: the actors by their names, the pool
   * threads as `WorkerThread`, V8's collector and compiler helpers as `V8Worker`); what threads that ended meanwhile
   * spent is in `service` only.
   */
  serviceThreads: Record<string, number>;
  samba: number;
  elasticsearch: number;
  /** Elasticsearch's CPU seconds by what its JVM's threads do (jvmThreadKind): its own work, garbage collection, the JIT. */
  elasticsearchThreads: Record<string, number>;
  /** SMB2 requests by command as Samba names them (create, close, find, getinfo, read, ...). */
  smb2: Record<string, number>;
  /** Bytes read from the machine's disks by anyone meanwhile: what the page cache did not hold. */
  diskRead: number;
  /**
   * The service's read and write syscalls (sockets and the event loops' wake-ups included) and the times its threads
   * went to sleep waiting for something (voluntary context switches; threads that ended meanwhile are left out). On a
   * virtual machine each costs far more than on bare metal: these say what a change to them can save.
   */
  serviceSyscalls: number;
  serviceSleeps: number;
}

/** Commands a pass or a listing sends, in the order the tables give them. */
export const SMB2_COMMANDS = ['create', 'find', 'getinfo', 'read', 'close'] as const;

export function pidIn(file: string): number {
  return Number(readFileSync(file, 'utf8').trim());
}

function smbcontrol(...args: string[]): void {
  execFileSync('smbcontrol', ['-s', layout.samba.conf, 'all', ...args], { stdio: 'ignore' });
}

/** Samba's request counters on (every smbd, also those already serving a connection) or off again. */
export function countSmbRequests(on: boolean): void {
  smbcontrol('profile', on ? 'count' : 'off');
}

/** Each smbd adds its counts to the shared table about once a second (smbprofile_dump); wait for that. */
const PROFILE_DUMP_MS = 1500;

async function smb2Counts(): Promise<Record<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, PROFILE_DUMP_MS));
  const out = execFileSync('smbstatus', ['-s', layout.samba.conf, '--profile'], { encoding: 'utf8' });
  const counts: Record<string, number> = {};
  for (const match of out.matchAll(/^smb2_(\w+)_count:\s+(\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

/** Bytes read so far from every whole disk (/sys/block but loop and RAM devices; /proc/diskstats counts 512-byte sectors). */
function diskReadBytes(): number {
  const disks = new Set(readdirSync('/sys/block').filter((name) => !/^(loop|ram|zram)/.test(name)));
  let sectors = 0;
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (disks.has(fields[2]!)) sectors += Number(fields[5]);
  }
  return sectors * 512;
}

/** The read and write syscalls `pid` made so far, by all of its threads (/proc/<pid>/io: syscr, syscw). */
function ioSyscalls(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^syscr: (\d+)$/m.exec(io)![1]) + Number(/^syscw: (\d+)$/m.exec(io)![1]);
}

/** The times the live threads of `pid` went to sleep so far (each thread's voluntary_ctxt_switches). */
function threadSleeps(pid: number): number {
  let sleeps = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      sleeps += Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))![1]);
    } catch {
      // ended meanwhile
    }
  }
  return sleeps;
}

/**
 * The CPU seconds each thread spent between two readings, added up by `group` of its name (by default the name
 * itself; a thread started meanwhile counts whole).
 */
export function byThreadName(before: readonly ThreadCpu[], after: readonly ThreadCpu[], group = (name: string) => name): Record<string, number> {
  const earlier = new Map(before.map((thread) => [thread.tid, thread.seconds]));
  const spent: Record<string, number> = {};
  for (const { tid, name, seconds } of after) spent[group(name)] = (spent[group(name)] ?? 0) + seconds - (earlier.get(tid) ?? 0);
  return spent;
}

/**
 * What a thread of Elasticsearch's JVM does, by its name (/proc comm, cut at 15 characters): Elasticsearch's own
 * threads (`elasticsearch[<node>][<pool>]…`: search, write, refresh, merge, transport), garbage collection (`GC Thread#`,
 * `G1 …`), the JIT (`C1/C2 CompilerThread`), or the JVM's others.
 */
export function jvmThreadKind(name: string): string {
  if (name.startsWith('elasticsearch[')) return 'its own threads';
  if (name.startsWith('GC Thread') || name.startsWith('G1 ')) return 'garbage collection';
  if (/^C[12] Compiler/.test(name)) return 'JIT compiler';
  return 'other JVM threads';
}

function cpuNow(servicePid: number): Pick<WorkCost, 'service' | 'samba' | 'elasticsearch'> {
  return {
    service: treeCpuSeconds(servicePid),
    samba: treeCpuSeconds(pidIn(layout.samba.pidFile)),
    elasticsearch: treeCpuSeconds(pidIn(layout.elasticsearch.pidFile)),
  };
}

/**
 * What `work` cost, as the difference of readings taken right around it: Samba's counters (which need their wait)
 * before the first CPU reading and after the second.
 */
export async function measureCost<T>(servicePid: number, work: () => Promise<T>): Promise<{ result: T; cost: WorkCost }> {
  const countsBefore = await smb2Counts();
  const cpuBefore = cpuNow(servicePid);
  const threadsBefore = threadsCpuSeconds(servicePid);
  const elasticsearchPid = pidIn(layout.elasticsearch.pidFile);
  const esThreadsBefore = threadsCpuSeconds(elasticsearchPid);
  const diskBefore = diskReadBytes();
  const syscallsBefore = ioSyscalls(servicePid);
  const sleepsBefore = threadSleeps(servicePid);
  const result = await work();
  const serviceSleeps = threadSleeps(servicePid) - sleepsBefore;
  const serviceSyscalls = ioSyscalls(servicePid) - syscallsBefore;
  const diskRead = diskReadBytes() - diskBefore;
  const threadsAfter = threadsCpuSeconds(servicePid);
  const esThreadsAfter = threadsCpuSeconds(elasticsearchPid);
  const cpuAfter = cpuNow(servicePid);
  const countsAfter = await smb2Counts();
  const smb2: Record<string, number> = {};
  for (const [command, count] of Object.entries(countsAfter)) smb2[command] = count - (countsBefore[command] ?? 0);
  return {
    result,
    cost: {
      service: cpuAfter.service - cpuBefore.service,
      serviceThreads: byThreadName(threadsBefore, threadsAfter),
      samba: cpuAfter.samba - cpuBefore.samba,
      elasticsearch: cpuAfter.elasticsearch - cpuBefore.elasticsearch,
      elasticsearchThreads: byThreadName(esThreadsBefore, esThreadsAfter, jvmThreadKind),
      smb2,
      diskRead,
      serviceSyscalls,
      serviceSleeps,
    },
  };
}

/** `service 410 µs, smbd 520 µs, Elasticsearch 300 µs` per unit of work. */
export function cpuPer(cost: WorkCost, units: number): string {
  const us = (seconds: number) => ((seconds * 1e6) / units).toFixed(0);
  return `service ${us(cost.service)} µs, smbd ${us(cost.samba)} µs, Elasticsearch ${us(cost.elasticsearch)} µs`;
}

/** `WorkerThread 610 µs, reconciler 290 µs, …, ended threads 12 µs`: the service's CPU per unit of work by thread name, the most first. */
export function threadsPer(cost: WorkCost, units: number): string {
  const named = Object.entries(cost.serviceThreads).filter(([, seconds]) => seconds > 0).sort((a, b) => b[1] - a[1]);
  const ended = cost.service - named.reduce((sum, [, seconds]) => sum + seconds, 0);
  const us = (seconds: number) => ((seconds * 1e6) / units).toFixed(0);
  return [...named.map(([name, seconds]) => `${name} ${us(seconds)} µs`), `ended threads ${us(Math.max(0, ended))} µs`].join(', ');
}

/** `read/write syscalls 3.1, sleeps 2.4`: the service's, per unit of work. */
export function wakesPer(cost: WorkCost, units: number): string {
  return `read/write syscalls ${(cost.serviceSyscalls / units).toFixed(2)}, sleeps ${(cost.serviceSleeps / units).toFixed(2)}`;
}

/** `create 2.0, find 4.0, …` per unit of work, for the commands of SMB2_COMMANDS. */
export function requestsPer(cost: WorkCost, units: number): string {
  return SMB2_COMMANDS.map((command) => `${command} ${((cost.smb2[command] ?? 0) / units).toFixed(1)}`).join(', ');
}

/**
 * What the servers' share of a piece of work allows on this machine: with smbd and Elasticsearch costing what they
 * did per unit and the service nothing at all, the cores could do at most this many units a second; and what the
 * three together allow. A target above the first is out of reach here whatever the service does.
 */
export function cpuCeiling(cost: WorkCost, units: number): { serversOnly: number; withService: number; cores: number } {
  const cores = availableParallelism();
  const servers = (cost.samba + cost.elasticsearch) / units;
  const all = servers + cost.service / units;
  return { serversOnly: cores / servers, withService: cores / all, cores };
}
