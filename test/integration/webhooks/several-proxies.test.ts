// Three proxies sharing their webhook state (cluster.shared_state: elasticsearch, the testbed's Elasticsearch)
// behind a real haproxy (round robin, health checks on /readyz), as README "More than one machine" runs them:
// an event id accepted by one proxy is a 409 at the others; a client registered or deleted through one proxy's
// admin API is known to the others within 1 s; a proxy killed (SIGKILL) under webhook load loses no accepted
// event. The shared indices are this test's own (cluster.index_prefix) and are deleted after it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { eventDocId } from '../../../src/webhooks/cluster-event-ids.js';
import { deleteIndicesStartingWith, testSearchClient } from '../../support/es-indices.js';
import { startProxiesBehindHaproxy, type ProxiesBehindBalancer, type RunningBalancer } from '../../support/haproxy.js';
import { waitUpTo, type RunningService } from '../../support/service.js';
import { readTestbedEnv } from '../../testbed/env.js';
import { AdminApi, postWebhook, statusCounts, type ClientEntry } from './api.js';

const PREFIX = `test-proxies-${randomUUID().slice(0, 8)}`;
/** Every event of the kill test stays within the window, so that each accepted one can be looked up afterwards. */
const WINDOW = 100_000;
const KNOWN_WITHIN_MS = 1_000;

describe('webhooks through 3 proxies sharing state behind haproxy', () => {
  let cluster: ProxiesBehindBalancer;
  let proxies: RunningService[];
  let balancer: RunningBalancer;
  let admins: AdminApi[];
  let es: Client;

  before(async () => {
    const env = await readTestbedEnv();
    es = testSearchClient(env.es.url);
    const shared = { cluster: { shared_state: 'elasticsearch', index_prefix: PREFIX }, webhooks: { dedupe_size: WINDOW } };
    cluster = await startProxiesBehindHaproxy(3, shared);
    ({ proxies, balancer } = cluster);
    admins = proxies.map((p) => AdminApi.asAdmin(p.url, env));
  });
  after(async () => {
    await cluster?.stop();
    await deleteIndicesStartingWith(es, PREFIX);
    await es.close();
  });

  const post = (url: string, client: ClientEntry, eventId: string = randomUUID()) =>
    postWebhook(url, { key: client.api_key, userAgent: client.user_agent, eventId });

  /** Milliseconds since `since` until a post through `url` answers other than `status` (a fresh event id each try; gives up after 5 s). */
  async function msUntilNot(url: string, client: ClientEntry, status: number, since: number): Promise<{ ms: number; status: number }> {
    for (;;) {
      const answer = (await post(url, client)).status;
      if (answer !== status || Date.now() - since > 5_000) return { ms: Date.now() - since, status: answer };
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a client registered through one proxy works through the others within 1 s, and a deleted one stops as fast', async () => {
    const client = await admins[0]!.register('platform-api');
    const registered = Date.now();
    for (const other of [proxies[1]!, proxies[2]!]) {
      const known = await msUntilNot(other.url, client, 401, registered);
      assert.equal(known.status, 200, other.url);
      assert.ok(known.ms <= KNOWN_WITHIN_MS, `${other.url} knew the new client after ${known.ms} ms`);
    }
    const deleted = await admins[1]!.deleteMany({ ids: [client.id] });
    assert.deepEqual(deleted.body, { deleted: [client.id], not_found: [] });
    const revoked = Date.now();
    for (const other of [proxies[0]!, proxies[2]!]) {
      const gone = await msUntilNot(other.url, client, 200, revoked);
      assert.equal(gone.status, 401, other.url);
      assert.ok(gone.ms <= KNOWN_WITHIN_MS, `${other.url} still took the deleted client's key after ${gone.ms} ms`);
    }
    assert.equal((await admins[2]!.list()).body.clients.some((c) => c.id === client.id), false);
  });

  it('an event accepted by one proxy is a 409 duplicate at every other, and through the balancer', async () => {
    const client = await admins[2]!.register('platform-api');
    await Promise.all(proxies.map((p) => msUntilNot(p.url, client, 401, Date.now())));
    const eventId = randomUUID();
    assert.equal((await post(proxies[0]!.url, client, eventId)).status, 200);
    for (const other of [proxies[1]!, proxies[2]!, balancer]) {
      const res = await post(other.url, client, eventId);
      assert.equal(res.status, 409, `${other.url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body['error'], 'duplicate_event');
    }
    // The same event at the same moment through all three: exactly one is accepted.
    const race = randomUUID();
    const statuses = await Promise.all([...proxies, ...proxies].map((p) => post(p.url, client, race).then((r) => r.status)));
    assert.deepEqual(statusCounts(statuses), { 200: 1, 409: 5 });
  });

  it('a proxy killed (SIGKILL) under webhook load through the balancer loses no accepted event', async () => {
    const client = await admins[0]!.register('platform-api');
    await Promise.all(proxies.map((p) => msUntilNot(p.url, client, 401, Date.now())));
    const accepted: string[] = [];
    const others: Record<string, number> = {};
    let sending = true;
    const sender = async () => {
      while (sending) {
        const eventId = randomUUID();
        try {
          const { status } = await post(balancer.url, client, eventId);
          if (status === 200) accepted.push(eventId);
          else others[status] = (others[status] ?? 0) + 1;
        } catch {
          others['connection error'] = (others['connection error'] ?? 0) + 1;
        }
      }
    };
    const senders = Array.from({ length: 8 }, sender);
    // The kill comes once events are accepted, and the load goes on until more are (and at least as long as the
    // balancer takes to notice the death): on a busy machine fixed waits saw too little. A wait that runs out is no
    // failure here: the assertion after it says what the load had.
    await waitUpTo(() => accepted.length > 0, 30_000);
    const victim = proxies[2]!;
    process.kill(victim.process.pid!, 'SIGKILL');
    const acceptedBeforeKill = accepted.length;
    await new Promise((r) => setTimeout(r, 2_500));
    await waitUpTo(() => accepted.length > acceptedBeforeKill, 30_000);
    sending = false;
    await Promise.all(senders);
    assert.ok(acceptedBeforeKill > 0 && accepted.length > acceptedBeforeKill, `accepted ${acceptedBeforeKill} before the kill, ${accepted.length} in all; others ${JSON.stringify(others)}`);
    // Every accepted event is in the shared index (a real-time GET by id), whichever proxy took it ...
    const found = await es.mget({ index: `${PREFIX}-webhook-events`, ids: accepted.map(eventDocId), _source: false });
    const missing = found.docs.filter((doc) => !('found' in doc) || !doc.found).length;
    assert.equal(missing, 0, `${missing} of ${accepted.length} accepted events are not in Elasticsearch`);
    // ... and every one is a duplicate at the proxies that live on.
    const again = await Promise.all(accepted.map((eventId, i) => post(proxies[i % 2]!.url, client, eventId).then((r) => r.status)));
    assert.deepEqual(statusCounts(again), { 409: accepted.length });
  });
});
