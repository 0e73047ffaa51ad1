/**
 * What the service, and the change watch in it, cost while nothing happens: settledIdleCpu, which the index
 * benchmark's idle row uses, and a command that measures it alone with many `.wiki/` folders:
 *   node dist/bench/index/watch-idle.js [folders ...]      (default 1000 5000)
 * (WATCHIDLE_MS: the window, default 65 s, past the SMB keep-alive's minute; WATCHIDLE_WATCH=on|off: only that
 * service; the window's bounds printed are for profile-summary.ts with SERVICE_NODE_ARGS='--cpu-prof ...'.)
 * For each size, that many folders with a `.wiki/` and one page each are written on the DC's disk (seed.ts), and
 * a service with `reconciler.watch` on and then one with it off each index them, settle and are measured; one
 * block per size and service, every OS thread of the service that used CPU listed.
 *
 * Idle means settled: no job running or queued, the hook's queue empty, every expected page in the index, and
 * neither the watch's event count nor its number of `.wiki/` folder watches changed for QUIET_MS. A service
 * measured right after work was handed to it (a seed, a pass that set up thousands of folder watches) would still
 * be doing that work.
 */
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { SmbClient } from '../../src/smb/index.js';
import { startService, waitFor, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { layout } from '../../test/testbed/layout.js';
import { passAfter, reconcilerDetails } from '../../test/integration/wiki/wiki-service.js';
import { shareAs } from '../../test/integration/reconcile/support.js';
import { isMain } from '../results.js';
import { monotonicUs } from '../profile-summary.js';
import { threadsCpuSeconds, treeCpuSeconds } from '../stats.js';
import { removeSeed, removeSeedDocuments, seedWiki } from './seed.js';
import { pidIn } from './work-cost.js';

/** How long nothing may change before the service counts as idle. */
const QUIET_MS = 5_000;
const SETTLE_GIVE_UP_MS = 600_000;

/** CPU seconds per second of wall time. */
export interface IdleCpu {
  /** The whole service (every thread). */
  service: number;
  /** Its reconciler thread (the watch and the hook's queue). */
  reconciler: number;
  /** Every smbd of the testbed's Samba. */
  samba: number;
  /** Each thread that used any CPU, busiest first. */
  threads: { tid: number; name: string; cpu: number }[];
  reconcilerTid: number;
  /** Handles the watches hold (one per share), and the changes reported during the window (0 when settled). */
  handles: number;
  events: number;
  /** From the call until the service had settled. */
  settleMs: number;
  /** The window in monotonic µs (the clock of process.hrtime and of --cpu-prof profiles: profile-summary.ts). */
  window: { from: number; to: number };
}

interface Details {
  running: unknown;
  queued: unknown[];
  hook: { queued: number; running: number };
  osThreadId: number | null;
  watch: Record<string, { events: number; handles: number }> | string;
}

/** Changes reported and handles held, over all shares (0, 0 with the watch off). */
function watchCounts(details: Details): { events: number; handles: number } {
  const watches = typeof details.watch === 'string' ? [] : Object.values(details.watch);
  return { events: watches.reduce((n, w) => n + w.events, 0), handles: watches.reduce((n, w) => n + w.handles, 0) };
}

async function indexedBelow(es: Client, root: string): Promise<number> {
  await es.indices.refresh({ index: DEFAULT_ALIAS });
  return (await es.count({ index: DEFAULT_ALIAS, query: { prefix: { path: `${root}/` } } })).count;
}

/**
 * Waits until the service has settled (see the module comment; `expected`: that many pages below `root` must be
 * indexed), then reads its CPU over `idleMs`.
 */
export async function settledIdleCpu(
  service: RunningService,
  { es, expected, idleMs }: { es: Client; expected?: { root: string; pages: number }; idleMs: number },
): Promise<IdleCpu> {
  const started = performance.now();
  const details = async () => (await reconcilerDetails(service)) as unknown as Details;
  let last = '';
  let quietSince = performance.now();
  await waitFor(async () => {
    const now = await details();
    const counts = JSON.stringify(watchCounts(now));
    if (counts !== last) [last, quietSince] = [counts, performance.now()];
    const busy = now.running !== null || now.queued.length > 0 || now.hook.queued > 0 || now.hook.running > 0;
    if (busy || performance.now() - quietSince < QUIET_MS) return false;
    return expected === undefined || (await indexedBelow(es, expected.root)) === expected.pages;
  }, SETTLE_GIVE_UP_MS);
  const settleMs = performance.now() - started;
  const first = await details();
  const reconcilerTid = first.osThreadId;
  if (reconcilerTid === null) throw new Error('the reconciler does not say which OS thread it is (not Linux?)');
  const pid = service.process.pid!;
  const sambaPid = pidIn(layout.samba.pidFile);
  const from = monotonicUs();
  const before = { threads: threadsCpuSeconds(pid), service: treeCpuSeconds(pid), samba: treeCpuSeconds(sambaPid) };
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const after = { threads: threadsCpuSeconds(pid), service: treeCpuSeconds(pid), samba: treeCpuSeconds(sambaPid) };
  const to = monotonicUs();
  const counts = watchCounts(await details());
  const perSecond = (seconds: number) => seconds / (idleMs / 1000);
  const earlier = new Map(before.threads.map((t) => [t.tid, t.seconds]));
  const threads = after.threads
    .map(({ tid, name, seconds }) => ({ tid, name, cpu: perSecond(seconds - (earlier.get(tid) ?? 0)) }))
    .filter((t) => t.cpu > 0)
    .sort((a, b) => b.cpu - a.cpu);
  return {
    service: perSecond(after.service - before.service),
    reconciler: threads.find((t) => t.tid === reconcilerTid)?.cpu ?? 0,
    samba: perSecond(after.samba - before.samba),
    threads,
    reconcilerTid,
    handles: counts.handles,
    events: counts.events - watchCounts(first).events,
    settleMs,
    window: { from, to },
  };
}

const SHARE = 'schule';
const ROOT = 'zz-watchidle';
/** WATCHIDLE_WATCH=on (or off) measures only that service, e.g. for a profile of it. */
const WATCH_SETTINGS = ({ on: [true], off: [false] } as Record<string, boolean[]>)[process.env['WATCHIDLE_WATCH'] ?? ''] ?? [true, false];
const pct = (cpuPerSecond: number) => `${(cpuPerSecond * 100).toFixed(2)} %`;

function describe(label: string, idle: IdleCpu): string {
  return [
    `${label}: service ${pct(idle.service)}, reconciler thread ${pct(idle.reconciler)}, Samba ${pct(idle.samba)}; ` +
      `${idle.handles} watch handles, ${idle.events} changes reported in the window, settled ${(idle.settleMs / 1000).toFixed(0)} s after the pass; window ${idle.window.from}:${idle.window.to}`,
    ...idle.threads.map((t) => `  ${pct(t.cpu).padStart(8)}  ${t.tid} ${t.name}${t.tid === idle.reconcilerTid ? ' (reconciler)' : ''}`),
  ].join('\n');
}

async function measure(folders: number, idleMs: number): Promise<void> {
  const env = await readTestbedEnv();
  const smb = new SmbClient();
  const es = createSearchClient({ nodes: [env.es.url] });
  const admin = shareAs(smb, env, env.dc_admin, SHARE);
  removeSeed(env, SHARE, ROOT);
  try {
    await seedWiki({ env, admin, share: SHARE, root: ROOT, folders, pages: folders });
    for (const watch of WATCH_SETTINGS) {
      const started = Date.now();
      const service = await startService({ reconciler: { interval: '24h', watch } });
      try {
        await passAfter(service, started, SETTLE_GIVE_UP_MS);
        const idle = await settledIdleCpu(service, { es, expected: { root: ROOT, pages: folders }, idleMs });
        console.log(describe(`${folders} folders, watch ${watch ? 'on' : 'off'}`, idle));
      } finally {
        await service.stop();
      }
    }
  } finally {
    removeSeed(env, SHARE, ROOT);
    await removeSeedDocuments(es, ROOT).catch(() => undefined);
    await smb.close();
    await es.close();
  }
}

if (isMain(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number);
  const idleMs = Number(process.env['WATCHIDLE_MS'] ?? 65_000);
  for (const folders of sizes.length > 0 ? sizes : [1000, 5000]) await measure(folders, idleMs);
}
