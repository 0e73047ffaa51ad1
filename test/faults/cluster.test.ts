// Fault: a node of a 3-node Elasticsearch cluster killed (SIGKILL) while 8 connections search through the service
// and a reindex of 600 pages runs; the searches go on until the reindex has finished and 50 more were answered after
// the kill. The client retries what failed on that node on the others and the index
// has a replica on another node: every search answers 200, not degraded, with the full count; the reindex finishes
// and every page of both shares is in the index. The node then comes back and the cluster is green again.
// The cluster is the testbed's (`npm run testbed -- cluster up`): started here when it is not up, or by the test
// runner ahead of this file (test/tiers.ts, startedAhead), and then stopped.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../src/search/client.js';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { assertSameDocuments, expectedFacts, indexedFacts, reconcilerStatus, runJob, shareAs, writeFiles } from '../integration/reconcile/support.js';
import { markdownPage } from '../integration/reconcile/markdown.js';
import { removeTree } from '../integration/smb/testbed.js';
import { passAfter, WikiClient, type Caller } from '../integration/wiki/wiki-service.js';
import { assertNothingCrashed } from '../support/health.js';
import { serviceIndex, startService, waitFor, type RunningService } from '../support/service.js';
import {
  clusterNodes, ensureClusterRunning, killClusterNode, startClusterNode, stopCluster, waitForCluster,
} from '../testbed/elasticsearch-cluster.js';
import { readTestbedEnv, type TestbedEnv } from '../testbed/env.js';

const ADMIN: Caller = { user: 'fpadmin', groups: ['Schul-Admins'] };
const CONNECTIONS = 8;
/** Searches answered after the kill, at least, before the load stops. */
const SEARCHES_AFTER_KILL = 50;
const PAGES = 600;

interface SearchOutcome {
  at: number;
  status: number;
  total?: number;
  degraded?: boolean;
  error?: string;
}

describe('a cluster node killed under search load and during a reindex', () => {
  let env: TestbedEnv;
  let started: number[] = [];
  let es: Client;
  let smb: SmbClient;
  let admin: SmbShare;
  let service: RunningService;
  const scratch = `_fault-cluster-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    started = await ensureClusterRunning();
    es = createSearchClient({ nodes: clusterNodes });
    smb = new SmbClient();
    admin = shareAs(smb, env, env.dc_admin, 'schule');
    const files: [string, string][] = [];
    for (let p = 0; p < PAGES; p++) files.push([`${scratch}/Klasse-${p % 20}/.wiki/seite-${p}.md`, markdownPage(p, 1024)]);
    await writeFiles(admin, files);
    const since = Date.now();
    service = await startService({
      elasticsearch: { url: undefined, nodes: [...clusterNodes] },
      reconciler: { interval: '1h', watch: false },
    });
    await passAfter(service, since, 120_000);
  });
  after(async () => {
    try {
      await removeTree(admin, scratch).catch(() => undefined);
      await es?.indices.delete({ index: `${serviceIndex}-v*`, ignore_unavailable: true }).catch(() => undefined);
      await es?.indices.delete({ index: `${serviceIndex}-lock`, ignore_unavailable: true }).catch(() => undefined);
    } finally {
      await service?.stop();
      await smb?.close();
      await es?.close();
      // Only the nodes this test started; a cluster someone brought up stays.
      await stopCluster(started);
    }
  });

  /** The cluster node holding the primary of the wiki index (the worst one to lose). */
  async function primaryNode(): Promise<number> {
    const shards = await es.cat.shards({ index: serviceIndex, format: 'json' });
    const primary = shards.find((shard) => shard.prirep === 'p' && shard.state === 'STARTED');
    assert.ok(primary?.node, `a started primary: ${JSON.stringify(shards)}`);
    assert.ok(shards.some((shard) => shard.prirep === 'r' && shard.state === 'STARTED'), `a started replica: ${JSON.stringify(shards)}`);
    return Number(/cluster-(\d)/.exec(primary.node)![1]) - 1;
  }

  it('answers every search, finishes the reindex with every page indexed, and turns green again', async () => {
    const api = new WikiClient(service.url, env);
    const baseline = await api.search(ADMIN, { q: 'Pythagoras' });
    assert.ok(baseline.total > 0 && baseline.degraded === undefined, JSON.stringify(baseline));
    const victim = await primaryNode();

    const outcomes: SearchOutcome[] = [];
    const t0 = Date.now();
    let loading = true;
    const worker = async () => {
      while (loading) {
        const at = Date.now() - t0;
        try {
          const res = await api.request<{ total: number; degraded?: boolean }>('/wiki/search', { caller: ADMIN, body: { q: 'Pythagoras' } });
          outcomes.push({ at, status: res.status, total: res.body.total, ...(res.body.degraded ? { degraded: true } : {}) });
        } catch (error) {
          outcomes.push({ at, status: 0, error: String(error) });
        }
      }
    };
    const load = Promise.all(Array.from({ length: CONNECTIONS }, worker));
    let runningAtKill: Awaited<ReturnType<typeof reconcilerStatus>>['running'];
    let job: Awaited<ReturnType<typeof runJob>>;
    try {
      // Waits on what happened, not on times: on a busy machine a fixed wait may see no search yet, or a reindex done.
      await waitFor(async () => outcomes.length >= CONNECTIONS * 5, 15_000);
      const reindex = runJob(service, { kind: 'reindex' });
      // The node goes while the reindex writes: once a tenth of the pages are in the new index.
      await waitFor(async () => ((await reconcilerStatus(service)).running?.indexed ?? 0) >= PAGES / 10, 60_000);
      const killedAt = Date.now() - t0;
      await killClusterNode(victim);
      runningAtKill = (await reconcilerStatus(service)).running;
      job = await reindex;
      await waitFor(async () => outcomes.filter((o) => o.at > killedAt).length >= SEARCHES_AFTER_KILL, 30_000);
    } finally {
      loading = false;
      await load;
    }

    assert.deepEqual([job.state, job.errors, job.failed], ['finished', [], 0], JSON.stringify(job));
    assert.equal(runningAtKill?.id, job.id, `the reindex ran when the node was killed (${JSON.stringify(runningAtKill)})`);
    const bad = outcomes.filter((o) => o.status !== 200 || o.degraded || o.total !== baseline.total);
    assert.deepEqual(bad, [], `${bad.length} of ${outcomes.length} searches failed or came back short`);

    for (const share of ['schule', 'verwaltung']) {
      assertSameDocuments(await indexedFacts(es, share), await expectedFacts(shareAs(smb, env, env.indexer, share), share), share);
    }
    await assertNothingCrashed(service);

    await startClusterNode(victim);
    await waitForCluster('green');
  });
});
