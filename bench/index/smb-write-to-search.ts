/**
 * SMB write → searchable, and what the change watch costs. A teacher (anna, with the project's SMB client) writes
 * pages on the share behind the service's back, as Explorer on a mapped drive does; only the reconciler's change
 * watch (reconciler.watch) brings them into the search before the next pass, which is hours away in the benchmark.
 * - Latency: timed as until-found.ts does (4 writers, each its own page), from the start of the write.
 * - CPU under a write burst: pages written as fast as 16 requests in flight allow, and the service's CPU seconds
 *   (every thread: the watch, the hook's queue, the smb-reader pool, the index writer) from the first write until
 *   the index holds them all, per page.
 * - CPU at idle: the service's CPU seconds per second over a quiet window (idleCpu), with the watch on, and in a
 *   service started with `reconciler.watch: false`.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { SmbShare } from '../../src/smb/index.js';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { removeTree } from '../../test/integration/smb/testbed.js';
import { writeFiles } from '../../test/integration/reconcile/support.js';
import { treeCpuSeconds } from '../stats.js';
import { timeUntilFound, type ChangeToSearch } from './until-found.js';

const WRITERS = 4;
const BURST_IN_FLIGHT = 16;
/** The burst's pages, spread over this many `.wiki/` folders. */
const BURST_FOLDERS = 10;
const BURST_GIVE_UP_MS = 120_000;

export interface SmbWriteToSearch extends ChangeToSearch {
  burst: { pages: number; ms: number; cpuPerPageMs: number };
}

/** What the last work left (the hook's flush, the index refresh) is over by then. */
const SETTLE_MS = 2_000;

/** Service CPU seconds per second of wall time while nothing is asked of it. */
export async function idleCpu(service: RunningService, ms: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = treeCpuSeconds(service.process.pid!);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (treeCpuSeconds(service.process.pid!) - before) / (ms / 1000);
}

async function indexedBelow(es: Client, dir: string): Promise<number> {
  await es.indices.refresh({ index: DEFAULT_ALIAS });
  return (await es.count({ index: DEFAULT_ALIAS, query: { prefix: { path: `${dir}/` } } })).count;
}

export async function smbWriteToSearch(
  service: RunningService,
  env: TestbedEnv,
  { teacher, es, writes, burstPages }: { teacher: SmbShare; es: Client; writes: number; burstPages: number },
): Promise<SmbWriteToSearch> {
  const dir = `zz-smbwritebench-${randomBytes(4).toString('hex')}`;
  try {
    await teacher.mkdir(`${dir}/.wiki`, { recursive: true });
    const latency = await timeUntilFound(service.url, env, {
      writers: WRITERS,
      changes: writes,
      change: async (n, word) => {
        await teacher.writeFile(`${dir}/.wiki/seite-${n}.md`, `# Seite ${n}\n\nÜber SMB gespeichert: ${word}\n`);
      },
    });
    const burstDir = `${dir}/burst`;
    const pages = Array.from({ length: burstPages }, (_, i): [string, string] => [`${burstDir}/Klasse${i % BURST_FOLDERS}/.wiki/seite${i}.md`, `# Seite ${i}\n\nStoss ${i}.\n`]);
    const cpuBefore = treeCpuSeconds(service.process.pid!);
    const started = performance.now();
    await writeFiles(teacher, pages, BURST_IN_FLIGHT);
    while ((await indexedBelow(es, burstDir)) < burstPages) {
      if (performance.now() - started > BURST_GIVE_UP_MS) throw new Error(`the burst's ${burstPages} pages were not all indexed within ${BURST_GIVE_UP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const ms = performance.now() - started;
    const cpu = treeCpuSeconds(service.process.pid!) - cpuBefore;
    return { ...latency, burst: { pages: burstPages, ms, cpuPerPageMs: (cpu * 1000) / burstPages } };
  } finally {
    await removeTree(teacher, dir);
  }
}
