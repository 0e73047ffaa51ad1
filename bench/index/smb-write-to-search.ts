/**
 * SMB write → searchable, and what the change watch costs. A teacher (anna, with the project's SMB client) writes
 * pages on the share behind the service's back, as Explorer on a mapped drive does; only the reconciler's change
 * watch (reconciler.watch) brings them into the search before the next pass, which is hours away in the benchmark.
 * - Latency: timed as until-found.ts does (4 writers, each its own page), from the start of the write.
 * - CPU under a write burst: pages written as fast as 16 requests in flight allow, and the CPU seconds from the
 *   first write until the index holds them all, per page: of the service (every thread: the watch, the hook's
 *   queue, the smb-reader pool, the index writer) and of the reconciler's thread alone (the watch and the hook's
 *   queue; the pages are read and rendered in the pool), which /healthz names by its OS thread id.
 * CPU at idle is watch-idle.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { SmbShare } from '../../src/smb/index.js';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { removeTree } from '../../test/integration/smb/testbed.js';
import { writeFiles } from '../../test/integration/reconcile/support.js';
import { reconcilerDetails } from '../../test/integration/wiki/wiki-service.js';
import { threadCpuSeconds, treeCpuSeconds } from '../stats.js';
import { timeUntilFound, type ChangeToSearch } from './until-found.js';

const WRITERS = 4;
const BURST_IN_FLIGHT = 16;
/** The burst's pages, spread over this many `.wiki/` folders. */
const BURST_FOLDERS = 10;
const BURST_GIVE_UP_MS = 120_000;

/** CPU seconds of the service (every thread) and of the reconciler's thread. */
export interface ServiceCpu {
  service: number;
  reconciler: number;
}

export interface SmbWriteToSearch extends ChangeToSearch {
  /** CPU per page in ms. */
  burst: { pages: number; ms: number; cpuPerPageMs: ServiceCpu };
}

/** A reading of the service's CPU seconds, whole and of its reconciler thread. */
async function cpuReader(service: RunningService): Promise<() => ServiceCpu> {
  const pid = service.process.pid!;
  const tid = ((await reconcilerDetails(service)) as unknown as { osThreadId: number | null }).osThreadId;
  if (tid === null) throw new Error('the reconciler does not say which OS thread it is (not Linux?)');
  return () => ({ service: treeCpuSeconds(pid), reconciler: threadCpuSeconds(pid, tid) });
}

const per = (after: ServiceCpu, before: ServiceCpu, unit: number): ServiceCpu => ({
  service: (after.service - before.service) / unit,
  reconciler: (after.reconciler - before.reconciler) / unit,
});

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
    const edits: number[] = [];
    const latency = await timeUntilFound(service.url, env, {
      writers: WRITERS,
      changes: writes,
      change: async (n, word) => {
        // Each edit changes the page's length, as edits do: Samba does not report a rewrite of the same length in
        // place to the watch of the share root (README, the live watch), and the next pass brings that.
        const edit = (edits[n] = (edits[n] ?? 0) + 1);
        await teacher.writeFile(`${dir}/.wiki/seite-${n}.md`, `# Seite ${n}\n\nÜber SMB gespeichert: ${word}${'!'.repeat(edit % 2)}\n`);
      },
    });
    const burstDir = `${dir}/burst`;
    const pages = Array.from({ length: burstPages }, (_, i): [string, string] => [`${burstDir}/Klasse${i % BURST_FOLDERS}/.wiki/seite${i}.md`, `# Seite ${i}\n\nStoss ${i}.\n`]);
    const read = await cpuReader(service);
    const cpuBefore = read();
    const started = performance.now();
    await writeFiles(teacher, pages, BURST_IN_FLIGHT);
    while ((await indexedBelow(es, burstDir)) < burstPages) {
      if (performance.now() - started > BURST_GIVE_UP_MS) throw new Error(`the burst's ${burstPages} pages were not all indexed within ${BURST_GIVE_UP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const ms = performance.now() - started;
    return { ...latency, burst: { pages: burstPages, ms, cpuPerPageMs: per(read(), cpuBefore, burstPages / 1000) } };
  } finally {
    await removeTree(teacher, dir);
  }
}
