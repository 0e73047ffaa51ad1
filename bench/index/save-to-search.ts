/**
 * Save → searchable: a teacher saves a wiki page over WebDAV, and the time until `POST /wiki/search` finds its new
 * word is taken, from the moment the PUT is sent (until-found.ts: 4 writers, each its own page).
 * What bounds it: the page's read and render, the post-write hook's batch (a group commit: 20 ms to gather when no
 * batch is on its way, else until the one on its way is answered) and the refresh the service asks for after it (at
 * most every half refresh interval: 500 ms by default), plus the polling search itself.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { documentId } from '../../src/wiki/document-id.js';
import type { HealthReport } from '../../src/runtime/health.js';
import { waitFor, type RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { account, DavClient } from '../../test/integration/webdav/dav-client.js';
import { TEACHER, timeUntilFound, type ChangeToSearch } from './until-found.js';

export const WRITERS = 4;

export interface SaveToSearch extends ChangeToSearch {
  /** The refreshes of the index meanwhile (the service's and Elasticsearch's own) and their mean time. */
  refreshes: { count: number; meanMs: number };
}

/** Refreshes of the index's primaries so far, and the time they took (`_stats/refresh`). */
async function refreshStats(env: TestbedEnv): Promise<{ total: number; ms: number }> {
  const res = await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_stats/refresh`);
  const stats = (await res.json()) as { _all: { primaries: { refresh: { total: number; total_time_in_millis: number } } } };
  const { total, total_time_in_millis: ms } = stats._all.primaries.refresh;
  return { total, ms };
}

/** Longer than a pool thread lives without a task (src/runtime/worker-pool.ts), with room for a busy host. */
const POOL_THREADS_END_MS = 90_000;

/**
 * Waits until the reconciler's two pools hold no thread (the smb-reader and indexer threads end 30 s after their last
 * task), so that the next save is a first save after a quiet spell: it waits for a thread of each pool to start.
 */
export async function poolThreadsEnded(service: RunningService): Promise<void> {
  await waitFor(async () => {
    const { actors } = (await (await fetch(`${service.url}/healthz`)).json()) as HealthReport;
    return ['smb-reader', 'indexer'].every((pool) => (actors[pool]?.details as { threads?: number } | undefined)?.threads === 0);
  }, POOL_THREADS_END_MS);
}

export async function saveToSearch(service: RunningService, env: TestbedEnv, saves: number): Promise<SaveToSearch> {
  const dav = new DavClient(service, account(env, TEACHER.user));
  const dir = `zz-savebench-${randomBytes(4).toString('hex')}`;
  const pageOf = (n: number) => `${dir}/.wiki/seite-${n}.md`;
  try {
    for (const folder of [dir, `${dir}/.wiki`]) {
      const status = await dav.mkcol(folder);
      if (status !== 201) throw new Error(`MKCOL ${folder}: ${status}`);
    }
    const before = await refreshStats(env);
    const timed = await timeUntilFound(service.url, env, {
      writers: WRITERS,
      changes: saves,
      change: async (n, word) => {
        const page = pageOf(n);
        const put = await dav.put(page, `# Seite ${n}\n\nNeu gespeichert: ${word}\n`);
        if (put.status !== 201 && put.status !== 204) throw new Error(`PUT ${page}: ${put.status} ${await put.text()}`);
      },
      indexed: async (n, word) => {
        const res = await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_doc/${documentId(env.smb.host, dav.share, pageOf(n))}?_source_includes=body`);
        return (await res.text()).includes(word);
      },
    });
    const after = await refreshStats(env);
    const count = after.total - before.total;
    return { ...timed, refreshes: { count, meanMs: count === 0 ? NaN : (after.ms - before.ms) / count } };
  } finally {
    await dav.remove(dir);
  }
}
