/**
 * The full reindex and its peer, shared by the index benchmarks (run.ts, pools.ts): `fileproxy reindex --all`
 * against the running service, and the same documents, as the service rendered them, sent straight to
 * Elasticsearch `_bulk` into a fresh index with the same mapping (same batch size and requests in flight as the
 * service's writer).
 */
import { spawn } from 'node:child_process';
import type { estypes } from '@elastic/elasticsearch';
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { IndexManager } from '../../src/indexing/reconciler/index-manager.js';
import type { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { RunningService } from '../../test/support/service.js';
import { FILEPROXY_CLI } from '../../test/support/cli-path.js';

export const BULK_BATCH = 500;
export const BULK_IN_FLIGHT = 2;
export const RAW_INDEX = 'indexbench-raw';

/** What `fileproxy reindex` exits with when Ctrl-C stopped the job. */
const STOPPED_EXIT = 130;

/**
 * `fileproxy reindex --all`. `stopAfterMs`: stop the reindex as an operator's Ctrl-C would once it has run that long;
 * the report then has state `cancelled` and the counts of the pages done.
 */
export function reindexAll(service: RunningService, cli = FILEPROXY_CLI, stopAfterMs?: number): Promise<{ report: JobInfo; wallMs: number }> {
  return reindexJob(service, '--all', cli, stopAfterMs);
}

/** `fileproxy reindex <what> --json` (`--all`, `--rebuild`) with the command line `cli`, and its report; as reindexAll. */
export function reindexJob(service: RunningService, what: '--all' | '--rebuild', cli = FILEPROXY_CLI, stopAfterMs?: number): Promise<{ report: JobInfo; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'reindex', what, '--json', '--config', service.configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stopper = stopAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGINT'), stopAfterMs);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(stopper);
      const stopped = code === STOPPED_EXIT && stopper !== undefined;
      if (code !== 0 && !stopped) reject(new Error(`reindex exited with ${code}: ${out}`));
      else resolve({ report: JSON.parse(out) as JobInfo, wallMs: performance.now() - started });
    });
  });
}

/** The documents below `root` as the service indexed them, as `_bulk` bodies of BULK_BATCH documents. */
export async function exportDocuments(es: ReturnType<typeof createSearchClient>, root: string): Promise<{ bodies: string[]; documents: number }> {
  const bodies: string[] = [];
  let documents = 0;
  let lines: string[] = [];
  let after: estypes.SortResults | undefined;
  for (;;) {
    const response = await es.search<Record<string, unknown>>({
      index: DEFAULT_ALIAS,
      size: 5000,
      query: { prefix: { path: `${root}/` } },
      sort: [{ path: 'asc' }],
      ...(after === undefined ? {} : { search_after: after }),
    });
    for (const hit of response.hits.hits) {
      lines.push(JSON.stringify({ index: { _id: hit._id } }), JSON.stringify(hit._source));
      documents++;
      if (lines.length === 2 * BULK_BATCH) {
        bodies.push(`${lines.join('\n')}\n`);
        lines = [];
      }
    }
    if (response.hits.hits.length < 5000) break;
    after = response.hits.hits.at(-1)!.sort;
  }
  if (lines.length > 0) bodies.push(`${lines.join('\n')}\n`);
  return { bodies, documents };
}

/** Sends the bodies to a fresh index with the wiki mapping, BULK_IN_FLIGHT at once; ms taken. */
export async function rawBulk(es: ReturnType<typeof createSearchClient>, bodies: string[]): Promise<number> {
  await es.indices.delete({ index: RAW_INDEX, ignore_unavailable: true });
  await new IndexManager({ client: es }).createIndex(RAW_INDEX);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = (await es.transport.request({ method: 'POST', path: `/${RAW_INDEX}/_bulk`, bulkBody: body })) as estypes.BulkResponse;
      if (response.errors) throw new Error('raw bulk: documents rejected');
    }
  };
  await Promise.all(Array.from({ length: BULK_IN_FLIGHT }, worker));
  const took = performance.now() - started;
  await es.indices.delete({ index: RAW_INDEX });
  return took;
}
