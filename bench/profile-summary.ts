/**
 * Where a service's CPU time went, from the `.cpuprofile` files of all its threads:
 *   SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node dist/bench/index/run.js
 *   node dist/bench/profile-summary.js /tmp/prof [top] [from:to]
 * Prints, per thread that did work, its sampled time (only that between the monotonic microseconds from and to, the
 * clock of process.hrtime, when given) by group (the module or package a function comes from, or
 * V8's own: garbage collection, idle) and its top functions by self time. A function of a thread bundle
 * (dist/threads/, several modules to a line) is named by where it is written: its module and line, through the
 * bundle's source map.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes them. */
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The group of a function: a package, a folder of this project, node's own modules, or V8's pseudo-frames. */
export function groupOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(?:dist\/)?((?:src|actors|supervisor)\/[^/]+)/.exec(url);
  return own ? own[1]!.replace(/\.[jt]s$/, '') : url;
}

/** The source maps of the bundles a profile ran, by the bundle's URL (undefined: the script has none). */
const sourceMaps = new Map<string, SourceMap | undefined>();

function sourceMapOf(url: string): SourceMap | undefined {
  if (!sourceMaps.has(url)) {
    const mapFile = url.startsWith('file:') ? `${fileURLToPath(url)}.map` : undefined;
    sourceMaps.set(url, mapFile !== undefined && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as never) : undefined);
  }
  return sourceMaps.get(url);
}

/** Where a frame's code is written: its original file's URL and 0-based line, when the script's source map knows. */
function writtenAt(frame: CallFrame): { url: string; lineNumber: number } {
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry === undefined || !('originalSource' in entry)) return frame;
  return { url: pathToFileURL(resolve(dirname(fileURLToPath(frame.url)), entry.originalSource)).href, lineNumber: entry.originalLine };
}

/** Now in monotonic microseconds: the clock of process.hrtime and of the profiles' samples (a SampleWindow's). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Monotonic microseconds (the profiles' clock, that of process.hrtime): only samples taken in between count. */
export interface SampleWindow {
  from: number;
  to: number;
}

const PROJECT_URL = new URL('../../', import.meta.url).href;

function selfTimes(profile: CpuProfile, window?: SampleWindow): Map<ProfileNode, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<ProfileNode, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window !== undefined && (at < window.from || at > window.to)) return;
    const node = byId.get(id)!;
    self.set(node, (self.get(node) ?? 0) + us);
  });
  return self;
}

/** Busy time (idle left out) of some profiles, by group and by function, in µs. */
export interface CpuTotals {
  busy: number;
  groups: Map<string, number>;
  functions: Map<string, number>;
}

export function cpuTotals(profiles: readonly CpuProfile[], window?: SampleWindow): CpuTotals {
  const totals: CpuTotals = { busy: 0, groups: new Map(), functions: new Map() };
  for (const profile of profiles) {
    for (const [node, us] of selfTimes(profile, window)) {
      const { functionName } = node.callFrame;
      const { url, lineNumber } = writtenAt(node.callFrame);
      const group = groupOf(url, functionName);
      if (group === '(idle)' || group === '(program)') continue;
      totals.busy += us;
      totals.groups.set(group, (totals.groups.get(group) ?? 0) + us);
      const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/dist\//, '').replace(PROJECT_URL, '').replace(/^.*node_modules\//, '')}:${lineNumber + 1}`;
      totals.functions.set(name, (totals.functions.get(name) ?? 0) + us);
    }
  }
  return totals;
}

function summarise(file: string, top: number, window?: SampleWindow): string | undefined {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { busy, groups, functions } = cpuTotals([profile], window);
  if (busy < (window === undefined ? 50_000 : 1_000)) return undefined; // threads that did next to nothing
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;
  const rank = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `${file}: ${ms(busy)} busy of ${ms(profile.endTime - profile.startTime)}`,
    '  by group:',
    ...rank(groups).map(([group, us]) => `    ${pct(us).padStart(7)} ${ms(us).padStart(9)}  ${group}`),
    '  top functions (self):',
    ...rank(functions).map(([name, us]) => `    ${pct(us).padStart(7)} ${ms(us).padStart(9)}  ${name}`),
  ].join('\n');
}

function main(): void {
  const [dir, top = '15', between] = process.argv.slice(2);
  const window = /^(\d+):(\d+)$/.exec(between ?? '');
  if (dir === undefined || (between !== undefined && window === null)) {
    console.error('usage: node dist/bench/profile-summary.js <dir of .cpuprofile files> [top] [<from µs>:<to µs>, monotonic]');
    process.exit(2);
  }
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.cpuprofile')).sort()) {
    const text = summarise(join(dir, name), Number(top), window === null ? undefined : { from: Number(window[1]), to: Number(window[2]) });
    if (text !== undefined) console.log(`${text}\n`);
  }
}

// Run as a command, not when bench/request-profile.ts imports groupOf.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
