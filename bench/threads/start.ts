/**
 * How soon the service's threads are ready, for this build and, with THREADBENCH_BASELINE=<checkout> (built there),
 * an earlier one, the two alternated round by round in the same run (the host's load drifts):
 *   node dist/bench/threads/start.js     (THREADBENCH_ROUNDS, default 5)
 * Each round and build: `fileproxy serve` with the testbed config (change watch off, no timed pass), timed from its
 * start until /healthz answers 200 (every actor running), with the CPU its threads had used by then; then, once its
 * first pass is done and the pools' threads have ended (30 s without a task), the first saves after that quiet spell
 * (save-to-search.ts), which wait for a thread of each pool to start, with the service's CPU meanwhile.
 * Writes its section of bench/RESULTS.md. No target: the section says what starting a thread costs, and what a change
 * to it saved.
 */
import { readTestbedEnv } from '../../test/testbed/env.js';
import { startService } from '../../test/support/service.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { percentile, threadsCpuSeconds, treeCpuSeconds } from '../stats.js';
import { baselineBuild, THIS_BUILD, type Build } from '../index/builds.js';
import { poolThreadsEnded, saveToSearch, WRITERS } from '../index/save-to-search.js';
import { byThreadName, measureCost } from '../index/work-cost.js';

const ROUNDS = Number(process.env['THREADBENCH_ROUNDS'] ?? 5);
const HEADING = '## Thread start';
const SCRIPT = 'dist/bench/threads/start.js';
const FIRST_PASS_GIVE_UP_MS = 120_000;

/** The service's threads in the groups the table shows, by their names (/proc/<pid>/task/<tid>/comm). */
function threadGroup(name: string): 'main' | 'pools' | 'V8 helpers' | 'actors' {
  if (name === 'MainThread' || name === 'node') return 'main';
  if (name === 'WorkerThread') return 'pools';
  if (name === 'V8Worker') return 'V8 helpers';
  return 'actors';
}

const GROUPS = ['actors', 'main', 'pools', 'V8 helpers'] as const;

interface Round {
  build: Build;
  readyMs: number;
  /** CPU seconds when /healthz first answered 200: the process, and its live threads by group (threadGroup). */
  cpuAtReady: number;
  groupsAtReady: Record<string, number>;
  /** The first saves after the quiet spell: the slowest until searchable, and the service's CPU seconds meanwhile. */
  slowestSaveMs: number;
  lostSaves: number;
  saveCpu: number;
}

async function measure(build: Build): Promise<Round> {
  const env = await readTestbedEnv();
  const started = Date.now();
  const t0 = performance.now();
  const service = await startService({ reconciler: { interval: '24h', watch: false } }, {}, build.cli);
  try {
    const readyMs = performance.now() - t0;
    const pid = service.process.pid!;
    const cpuAtReady = treeCpuSeconds(pid);
    const groupsAtReady = byThreadName([], threadsCpuSeconds(pid), threadGroup);
    await passAfter(service, started, FIRST_PASS_GIVE_UP_MS);
    await poolThreadsEnded(service);
    const { result: saves, cost } = await measureCost(pid, () => saveToSearch(service, env, WRITERS));
    const round = { build, readyMs, cpuAtReady, groupsAtReady, slowestSaveMs: saves.max, lostSaves: saves.lost, saveCpu: cost.service };
    console.log(`${build.label}: ready after ${readyMs.toFixed(0)} ms, ${(cpuAtReady * 1000).toFixed(0)} ms CPU; the first ${WRITERS} saves after the quiet spell searchable after at most ${saves.max.toFixed(0)} ms, service CPU ${(cost.service * 1000).toFixed(0)} ms`);
    return round;
  } finally {
    await service.stop();
  }
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const baseline = baselineBuild('THREADBENCH_BASELINE');
  const builds = baseline === undefined ? [THIS_BUILD] : [baseline, THIS_BUILD];
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) for (const build of builds) rounds.push(await measure(build));
  const unexpected = rounds.reduce((u, r) => u.add(`saves (${r.build.label})`, 'not found', r.lostSaves), new Unexpected());
  const ms = (seconds: number) => (seconds * 1000).toFixed(0);
  const row = (build: Build) => {
    const of = rounds.filter((r) => r.build === build);
    const med = (pick: (r: Round) => number) => percentile(of.map(pick).sort((a, b) => a - b), 0.5);
    return `| ${build.label} | ${med((r) => r.readyMs).toFixed(0)} | ${ms(med((r) => r.cpuAtReady))} | ${GROUPS.map((g) => ms(med((r) => r.groupsAtReady[g] ?? 0))).join(' / ')} | ${med((r) => r.slowestSaveMs).toFixed(0)} (${of.map((r) => r.slowestSaveMs.toFixed(0)).join(', ')}) | ${ms(med((r) => r.saveCpu))} |`;
  };
  const lines = [
    runLine(SCRIPT, load),
    `Each round and build: \`fileproxy serve\` with the testbed config (\`reconciler.watch: false\`, no timed pass), timed from the start until \`/healthz\` answers 200 (every actor running; polled every 50 ms), the CPU of its threads read then (/proc); after its first pass and once both pools had no thread (30 s without a task), the first ${WRITERS} saves over WebDAV (bench/index/save-to-search.ts), each until \`/wiki/search\` finds it, with the service's CPU meanwhile. ${ROUNDS} rounds${baseline === undefined ? '' : `, the builds alternated (${baseline.label} first)`}; medians, the rounds' own figures in brackets. Saves not found: ${unexpected.toString()}.`,
    '',
    `| build | ready, ms | CPU at ready, ms | of it actors / main / pools / V8 helpers, ms | first ${WRITERS} saves after the quiet spell: the slowest searchable, ms | the service's CPU over them, ms |`,
    '|---|---:|---:|---:|---:|---:|',
    ...builds.map(row),
    '',
  ];
  return report(HEADING, lines, []);
}

export const threadStartBench: Benchmark = { name: 'thread-start', script: SCRIPT, run };

await runAlone(import.meta.url, threadStartBench);
