/**
 * Whether background work yields to requests: three kinds of request, each at RATE a second open loop
 * (fixed-rate.ts), all three at once, first for IDLE_MS while the service idles and then throughout a full
 * `fileproxy reindex --all`: search through the service, WebDAV GET of a seeded page as a teacher, webhook POST.
 * Their p99 during the reindex against their own idle p99 says how much the reindex costs the request path; the
 * reindex's time says what the pace it runs at costs. A reindex still running after REINDEX_WINDOW_MS (a gentle pace
 * takes many times that at 50,000 pages) is stopped as Ctrl-C stops it, and its whole time projected from the pages
 * it wrote in that window.
 */
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import type { RunningService } from '../../test/support/service.js';
import type { TestbedEnv } from '../../test/testbed/env.js';
import { FILEPROXY_CLI } from '../../test/support/cli-path.js';
import { account, DavClient } from '../../test/integration/webdav/dav-client.js';
import { AdminApi, postWebhook } from '../../test/integration/webhooks/api.js';
import { atFixedRate, type Latency } from '../fixed-rate.js';
import { reindexAll } from '../index/reindex.js';
import { measureCost, type WorkCost } from '../index/work-cost.js';
import { serviceSearch } from './search-latency.js';

/** Requests a second of each kind: a modest, steady load far below what each front can take. */
export const RATE = 20;
export const IDLE_MS = 15_000;
/** SCALEBENCH_WINDOW_MS: the longest the requests are sampled during a reindex; 300 s keeps the bench within its hour. */
export const REINDEX_WINDOW_MS = Number(process.env['SCALEBENCH_WINDOW_MS'] ?? 300_000);
/** A teacher of the testbed; the first seeded folder's ACL kind lets every domain user read (seed.ts). */
const TEACHER = 'anna';

export interface KindLatency {
  name: string;
  idle: Latency;
  busy: Latency;
}

export interface Isolation {
  /** `projectedMs`: the whole reindex's time, its own when it finished, else (job state `cancelled`) from its rate in the window. */
  reindex: { job: JobInfo; wallMs: number; cost: WorkCost; projectedMs: number };
  kinds: KindLatency[];
}

/** The time of the whole reindex: from the pages it wrote before it was stopped, of the pages the index held at its start. */
function projectedMs(job: JobInfo): number {
  if (job.state !== 'cancelled') return job.durationMs;
  if (job.expected === null || job.indexed === 0) throw new Error(`reindex stopped after ${job.durationMs} ms with ${job.indexed} pages written: nothing to project from`);
  return (job.durationMs * job.expected) / job.indexed;
}

/** `page`: a seeded page every domain user may read, on `share`. */
export async function isolation(service: RunningService, env: TestbedEnv, share: string, page: string): Promise<Isolation> {
  const dav = new DavClient(service, account(env, TEACHER), share);
  const webhookKey = (await AdminApi.asAdmin(service.url, env).register('platform-api')).api_key;
  let searches = 0;
  const kinds: { name: string; send: () => Promise<boolean> }[] = [
    { name: 'search `POST /wiki/search`', send: async () => (await serviceSearch(env, service.url, searches++)) === undefined },
    {
      name: 'WebDAV GET of a seeded page',
      send: async () => {
        const res = await dav.request('GET', page);
        await res.arrayBuffer();
        return res.status === 200;
      },
    },
    { name: 'webhook POST', send: async () => (await postWebhook(service.url, { key: webhookKey, userAgent: 'platform-api/1.0', body: '{"event":"bench"}' })).status === 200 },
  ];
  const sample = (until: Promise<unknown>) => Promise.all(kinds.map((kind) => atFixedRate(RATE, until, kind.send)));
  const idle = await sample(new Promise((resolve) => setTimeout(resolve, IDLE_MS)));
  // Sampled from the reindex's start to its end, not over measureCost's readings around it.
  let begun!: (reindex: { job: Promise<unknown> }) => void;
  const started = new Promise<{ job: Promise<unknown> }>((resolve) => (begun = resolve));
  const reindexing = measureCost(service.process.pid!, () => {
    const job = reindexAll(service, FILEPROXY_CLI, REINDEX_WINDOW_MS);
    begun({ job });
    return job;
  });
  // measureCost failing before the reindex began must not leave the sampling waiting for it.
  reindexing.catch(() => begun({ job: reindexing }));
  const busy = await sample((await started).job);
  const reindexed = await reindexing;
  return {
    reindex: {
      job: reindexed.result.report,
      wallMs: reindexed.result.wallMs,
      cost: reindexed.cost,
      projectedMs: projectedMs(reindexed.result.report),
    },
    kinds: kinds.map((kind, i) => ({ name: kind.name, idle: idle[i]!, busy: busy[i]! })),
  };
}
