/**
 * Idle memory benchmark on the testbed:
 *   node dist/bench/memory/run.js
 * Starts the service as the package runs it: `fileproxy serve` with the testbed config (the default workers and
 * supervisor settings) and the environment of config/edu-fileproxy.service. After its first reconciler pass it
 * waits IDLE_MS for the service to settle, then reads where the resident memory goes: the process's mappings by
 * kind (/proc/<pid>/smaps, memory-map.ts), the V8 heap of every thread (/metrics) and the threads
 * (/proc/<pid>/task). Then, with the supervisor in this process (as test/faults/actor-kill.test.ts runs it), it
 * ends each actor's thread from outside, ROUNDS times, and times how long until the actor is serving again.
 * Writes its tables under "## Idle memory" in bench/RESULTS.md.
 */
import { EventEmitter, once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { loadConfig, readIndexerPassword } from '../../src/config/index.js';
import { Supervisor } from '../../supervisor/supervisor.js';
import { killActor } from '../../test/support/fault-drills.js';
import { runService, waitFor, writeServiceConfig, type RunningService } from '../../test/support/service.js';
import { shippedUnitEnvironment } from '../../test/support/systemd-unit.js';
import { parsePrometheusText, type Sample } from '../../test/unit/metrics/prometheus-text.js';
import { reconcilerDetails } from '../../test/integration/wiki/wiki-service.js';
import { loadAverage, report, runAlone, runLine, verdict, type BenchReport, type Benchmark, type SummaryRow } from '../results.js';
import { mebibytes, percentile, residentBytes } from '../stats.js';
import { memoryMap, type MemoryMap } from './memory-map.js';
import { FILEPROXY_CLI } from '../../test/support/cli-path.js';

const HEADING = '## Idle memory';
/** Quiet after the first pass before memory is read: longer than a pool thread lives without a task (30 s). */
const IDLE_MS = Number(process.env['MEMBENCH_IDLE_S'] ?? 45) * 1000;
/** RSS samples, one a second, whose median is the idle RSS. */
const RSS_SAMPLES = 5;
/** Kills of each actor when timing restarts. */
const ROUNDS = 5;
/** Between kills of one actor: longer than the restart window below, so each kill is a first crash (100 ms back-off). */
const BETWEEN_KILLS_MS = 2_500;
/** Issue 17: idle RSS of the service with the default config, and a restart that stays under a second. */
const TARGET = { idleMiB: 250, restartMs: 1000 };

type Overrides = Record<string, Record<string, unknown>>;

/** The configurations measured: the default, and each setting that trades memory for something else. */
const VARIANTS: { name: string; overrides: Overrides }[] = [
  { name: 'default config', overrides: {} },
  { name: 'spare_threads: true', overrides: { supervisor: { spare_threads: true } } },
];

/** The process's threads by name (/proc/<pid>/task/<tid>/comm), e.g. `{ "V8Worker": 4, "reconciler": 1 }`. */
function threadNames(pid: number): Record<string, number> {
  const names: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    names[name] = (names[name] ?? 0) + 1;
  }
  return names;
}

interface ThreadHeap {
  thread: string;
  used: number;
  physical: number;
}

/** The V8 heap of the main thread (prom-client's default metrics) and of every actor and pool thread. */
function threadHeaps(samples: readonly Sample[]): ThreadHeap[] {
  const of = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
  const main = { thread: 'main (supervisor)', used: of('nodejs_heap_size_used_bytes'), physical: of('nodejs_heap_size_total_bytes') };
  const threads = samples.filter((s) => s.name === 'fileproxy_thread_heap_used_bytes').map((s) => s.labels['thread']!);
  return [main, ...threads.map((thread) => ({
    thread,
    used: of('fileproxy_thread_heap_used_bytes', { thread }),
    physical: of('fileproxy_thread_heap_physical_bytes', { thread }),
  }))];
}

interface IdleFigures {
  rss: number;
  status: { anon: number; file: number };
  map: MemoryMap;
  heaps: ThreadHeap[];
  /** Main thread's young generation (new space) as V8 holds it. */
  mainNewSpace: number;
  threads: Record<string, number>;
}

function statusKb(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

async function idleFigures(overrides: Overrides): Promise<IdleFigures> {
  const { file, port } = await writeServiceConfig(overrides);
  const environment = shippedUnitEnvironment();
  const service: RunningService = await runService([process.execPath, FILEPROXY_CLI, 'serve', '--config', file],
    { configFile: file, port, env: { ...process.env, ...environment } });
  try {
    const pid = service.process.pid!;
    await waitFor(async () => (await reconcilerDetails(service)).lastPass !== null, 60_000);
    console.log(`  first pass done; idle for ${IDLE_MS / 1000} s (environment: ${Object.entries(environment).map(([k, v]) => `${k}=${v}`).join(' ')})`);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const rss: number[] = [];
    for (let i = 0; i < RSS_SAMPLES; i++) {
      rss.push(residentBytes(pid));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const samples = parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text());
    const mainNewSpace = samples.find((s) => s.name === 'nodejs_heap_space_size_total_bytes' && s.labels['space'] === 'new')?.value ?? 0;
    return {
      rss: percentile(rss.sort((a, b) => a - b), 0.5),
      status: { anon: statusKb(pid, 'RssAnon'), file: statusKb(pid, 'RssFile') },
      map: memoryMap(pid),
      heaps: threadHeaps(samples),
      mainNewSpace,
      threads: threadNames(pid),
    };
  } finally {
    await service.stop();
  }
}

/**
 * A logger for the supervisor that emits an actor's name, with the time, each time it logs that actor ready: pino
 * hands each line to its stream as it logs it, so the time is the event's.
 */
function readyLog(): { log: Logger; ready: EventEmitter } {
  const ready = new EventEmitter();
  const log = pino({ level: 'info' }, {
    write(line: string) {
      const { msg, actor } = JSON.parse(line) as { msg?: string; actor?: string };
      if (msg === 'actor ready' && actor) ready.emit(actor, performance.now());
    },
  });
  return { log, ready };
}

/** Per actor: ms from the end of its thread until it is serving again (its new thread reported ready), each round. */
async function restartTimes(overrides: Overrides): Promise<Map<string, number[]>> {
  const { file } = await writeServiceConfig({ ...overrides, supervisor: { ...overrides['supervisor'], restart_window: '1s' }, reconciler: { interval: '1h' }, log: { level: 'warn' } });
  const { config } = loadConfig(file);
  const { log, ready } = readyLog();
  const supervisor = new Supervisor(config, { indexerPassword: readIndexerPassword(config) }, log);
  await supervisor.start();
  const times = new Map<string, number[]>();
  try {
    const names = Object.entries((await supervisor.health()).actors).filter(([, health]) => health.kind === 'actor').map(([name]) => name);
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        await new Promise((resolve) => setTimeout(resolve, BETWEEN_KILLS_MS));
        const late = new AbortController();
        const back = once(ready, name, { signal: late.signal }); // listened for before the kill, which may take a while
        await killActor(name);
        const killedAt = performance.now(); // the thread is gone
        // The supervisor sees the exit within a few ms and starts the actor again after its back-off (100 ms here).
        const timer = setTimeout(() => late.abort(), 10_000);
        try {
          const [readyAt] = (await back) as [number];
          times.set(name, [...(times.get(name) ?? []), readyAt - killedAt]);
        } catch {
          throw new Error(`${name} not back within 10 s`);
        } finally {
          clearTimeout(timer);
        }
      }
    }
  } finally {
    await supervisor.stop();
  }
  return times;
}

interface VariantResult {
  name: string;
  idle: IdleFigures;
  restarts: Map<string, number[]>;
}

const worstRestart = (r: VariantResult) => Math.max(...[...r.restarts.values()].flat());

function heapTable(results: VariantResult[]): string[] {
  const threads = [...new Set(results.flatMap((r) => r.idle.heaps.map((h) => h.thread)))];
  const cell = (r: VariantResult, thread: string) => {
    const heap = r.idle.heaps.find((h) => h.thread === thread);
    return heap ? `${mebibytes(heap.used)} / ${mebibytes(heap.physical)}` : '–';
  };
  const sum = (r: VariantResult) => `${mebibytes(r.idle.heaps.reduce((a, h) => a + h.used, 0))} / ${mebibytes(r.idle.heaps.reduce((a, h) => a + h.physical, 0))}`;
  return [
    `| thread | ${results.map((r) => `${r.name}: V8 heap used / held, MiB`).join(' | ')} |`,
    `|---|${results.map(() => '---:').join('|')}|`,
    ...threads.map((thread) => `| ${thread} | ${results.map((r) => cell(r, thread)).join(' | ')} |`),
    `| all threads | ${results.map(sum).join(' | ')} |`,
  ];
}

function processTable(results: VariantResult[]): string[] {
  const row = (label: string, read: (r: VariantResult) => string) => `| ${label} | ${results.map(read).join(' | ')} |`;
  const threadCount = (r: VariantResult) => Object.values(r.idle.threads).reduce((a, n) => a + n, 0);
  return [
    `| figure | ${results.map((r) => r.name).join(' | ')} |`,
    `|---|${results.map(() => '---:').join('|')}|`,
    row('**resident (VmRSS), MiB, median of 5 samples**', (r) => `**${mebibytes(r.idle.rss)}**`),
    row('anonymous (RssAnon) / file-backed (RssFile), MiB', (r) => `${mebibytes(r.idle.status.anon)} / ${mebibytes(r.idle.status.file)}`),
    row('V8 heap pages (256 KiB mappings), MiB', (r) => mebibytes(r.idle.map.v8HeapPages)),
    row('V8 compiled code (executable mappings), MiB', (r) => mebibytes(r.idle.map.v8Code)),
    row('glibc malloc arenas (count), MiB', (r) => `${mebibytes(r.idle.map.mallocArenas)} (${r.idle.map.arenas})`),
    row('node binary and libraries (file-backed), MiB', (r) => mebibytes(r.idle.map.fileBacked)),
    row('other anonymous (stacks, large blocks, large objects), MiB', (r) => mebibytes(r.idle.map.otherAnonymous)),
    row('main thread\'s young generation, MiB', (r) => mebibytes(r.idle.mainNewSpace)),
    row('threads', (r) => `${threadCount(r)}: ${Object.entries(r.idle.threads).sort().map(([name, n]) => `${name} ${n}`).join(', ')}`),
  ];
}

function restartTable(results: VariantResult[]): string[] {
  const actors = [...new Set(results.flatMap((r) => [...r.restarts.keys()]))];
  const cell = (r: VariantResult, actor: string) => (r.restarts.get(actor) ?? []).map((ms) => ms.toFixed(0)).join(', ') || '–';
  return [
    `| actor | ${results.map((r) => `${r.name}: kill → serving, ms`).join(' | ')} |`,
    `|---|${results.map(() => '---:').join('|')}|`,
    ...actors.map((actor) => `| ${actor} | ${results.map((r) => cell(r, actor)).join(' | ')} |`),
    `| worst | ${results.map((r) => `**${worstRestart(r).toFixed(0)}**`).join(' | ')} |`,
  ];
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const results: VariantResult[] = [];
  for (const variant of VARIANTS) {
    console.log(`${variant.name}: idle memory ...`);
    const idle = await idleFigures(variant.overrides);
    console.log(`  RSS ${mebibytes(idle.rss)} MiB; restarts ...`);
    const restarts = await restartTimes(variant.overrides);
    console.log(`  worst restart ${Math.max(...[...restarts.values()].flat()).toFixed(0)} ms`);
    results.push({ name: variant.name, idle, restarts });
  }
  const [defaults, ...tradeOffs] = results as [VariantResult, ...VariantResult[]];
  const idleMet = defaults.idle.rss <= TARGET.idleMiB * 2 ** 20;
  const lines = [
    runLine(SCRIPT, load),
    `The service as the package runs it: \`fileproxy serve\` with the testbed config and the \`Environment=\` of config/edu-fileproxy.service, read ${IDLE_MS / 1000} s after`,
    'its first reconciler pass (nothing else happening). Kinds of memory from /proc/<pid>/smaps by the shape of their mappings (bench/memory/memory-map.ts);',
    'V8 heaps per thread from `/metrics` (`fileproxy_thread_heap_*`; the main thread\'s from `nodejs_heap_size_*`): "held" is what V8 holds from the system.',
    '',
    ...processTable(results),
    '',
    ...heapTable(results),
    '',
    `Restarts: the supervisor in the benchmark's process with the same config (\`supervisor.restart_window: 1s\`, so that each kill, ${BETWEEN_KILLS_MS / 1000} s apart, is a first crash`,
    'with the 100 ms back-off), each actor\'s thread ended from outside (killActor of test/support/fault-drills.ts, as test/faults/actor-kill.test.ts does) and timed until the supervisor logged its new thread ready.',
    '',
    ...restartTable(results),
    '',
    `${defaults.name}: idle RSS ${mebibytes(defaults.idle.rss)} MiB (target ≤ ${TARGET.idleMiB} MiB) ${verdict(idleMet)}; worst restart ${worstRestart(defaults).toFixed(0)} ms (target < ${TARGET.restartMs} ms) ${verdict(worstRestart(defaults) < TARGET.restartMs)}.`,
    ...tradeOffs.map((r) => `${r.name}: idle RSS ${mebibytes(r.idle.rss)} MiB (${mebibytes(r.idle.rss - defaults.idle.rss)} MiB more than the default); worst restart ${worstRestart(r).toFixed(0)} ms `
      + `(target < ${TARGET.restartMs} ms) ${verdict(worstRestart(r) < TARGET.restartMs)}.`),
    '',
  ];
  // The idle target is the default config's; a setting that trades memory for something else is judged by its restarts only.
  const rows: SummaryRow[] = [
    { figure: `service idle RSS, MiB, ${defaults.name}`, service: mebibytes(defaults.idle.rss), peer: '–', ratio: '–', target: `≤ ${TARGET.idleMiB} MiB`, met: idleMet },
    ...results.map((r) => ({ figure: `actor restart, kill → serving, worst ms, ${r.name}`, service: worstRestart(r).toFixed(0), peer: '–', ratio: '–', target: `< ${TARGET.restartMs} ms`, met: worstRestart(r) < TARGET.restartMs })),
  ];
  return report(HEADING, lines, rows);
}

const SCRIPT = 'dist/bench/memory/run.js';
export const memoryBench: Benchmark = { name: 'memory', script: SCRIPT, run };

await runAlone(import.meta.url, memoryBench);
