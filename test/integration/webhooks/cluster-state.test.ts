// The webhook state proxies share (cluster.shared_state: elasticsearch), against the testbed's Elasticsearch:
// the event ids (check-and-insert by `create`, the window kept by prune) and the client list (compare-and-set),
// each used by two instances as two proxies would. Every index is this test's own and is deleted after it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@elastic/elasticsearch';
import { ElasticsearchWebhookClientStore } from '../../../src/webhooks/cluster-client-store.js';
import { ClusterEventIds } from '../../../src/webhooks/cluster-event-ids.js';
import { WebhookClientRegistry } from '../../../src/webhooks/registry.js';
import { deleteIndicesStartingWith, testSearchClient } from '../../support/es-indices.js';
import { readTestbedEnv } from '../../testbed/env.js';

const PREFIX = `test-shared-${randomUUID().slice(0, 8)}`;

describe('webhook state in Elasticsearch, shared by two proxies', () => {
  let es: Client;
  before(async () => {
    es = testSearchClient((await readTestbedEnv()).es.url);
  });
  after(async () => {
    await deleteIndicesStartingWith(es, PREFIX);
    await es.close();
  });

  describe('event ids', () => {
    const index = `${PREFIX}-webhook-events`;

    it('an id admitted through one proxy is a duplicate at the other at once, also within one batch', async () => {
      const a = new ClusterEventIds(es, index, 100, 1_000);
      const b = new ClusterEventIds(es, index, 100, 1_000);
      await Promise.all([a.open(0), b.open(0)]);
      const id = randomUUID();
      assert.deepEqual(await a.admitAll([{ eventId: id, clientId: 'c1' }]), ['admitted']);
      assert.equal(await b.seen(id), true, 'a GET by id needs no refresh');
      assert.deepEqual(await b.admitAll([{ eventId: id, clientId: 'c2' }]), ['duplicate']);
      const other = randomUUID();
      assert.deepEqual(await b.admitAll([{ eventId: other, clientId: 'c2' }, { eventId: other, clientId: 'c2' }]), ['admitted', 'duplicate']);
    });

    it('of 20 simultaneous admits of one id through two proxies exactly one wins', async () => {
      const a = new ClusterEventIds(es, index, 100, 1_000);
      const b = new ClusterEventIds(es, index, 100, 1_000);
      const id = randomUUID();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).admitAll([{ eventId: id, clientId: 'c' }])));
      assert.equal(results.flat().filter((a) => a === 'admitted').length, 1);
    });

    it('a forgotten id may be admitted again', async () => {
      const ids = new ClusterEventIds(es, index, 100, 1_000);
      const id = randomUUID();
      assert.deepEqual(await ids.admitAll([{ eventId: id, clientId: 'c' }]), ['admitted']);
      await ids.forget(id);
      await ids.forget(id); // twice: the second finds nothing, and says nothing
      assert.equal(await ids.seen(id), false);
      assert.deepEqual(await ids.admitAll([{ eventId: id, clientId: 'c' }]), ['admitted']);
    });

    it('prune keeps the newest `window` ids of all proxies and forgets the older ones; one proxy prunes per interval', async () => {
      const windowIndex = `${PREFIX}-window-webhook-events`;
      let clock = 1_000_000;
      const tick = () => clock++;
      const a = new ClusterEventIds(es, windowIndex, 5, 1_000, tick);
      const b = new ClusterEventIds(es, windowIndex, 5, 1_000, tick);
      await a.open(0);
      const sent = Array.from({ length: 8 }, () => randomUUID());
      for (const [i, id] of sent.entries()) await (i % 2 === 0 ? a : b).admitAll([{ eventId: id, clientId: 'c' }]);
      await es.indices.refresh({ index: windowIndex });
      assert.equal(await a.prune(), 3);
      assert.deepEqual(await Promise.all(sent.map((id) => b.seen(id))), [false, false, false, true, true, true, true, true]);
      const more = Array.from({ length: 2 }, () => randomUUID());
      for (const id of more) await b.admitAll([{ eventId: id, clientId: 'c' }]);
      await es.indices.refresh({ index: windowIndex });
      assert.equal(await b.prune(), 0, 'a pruned less than the interval ago');
      clock += 1_000;
      assert.equal(await b.prune(), 2, 'the interval is over: b takes the lease');
      assert.deepEqual(await Promise.all([...sent, ...more].map((id) => a.seen(id))), [false, false, false, false, false, true, true, true, true, true]);
      clock += 1_000;
      await es.indices.refresh({ index: windowIndex });
      assert.equal(await a.prune(), 0, 'nothing beyond the window (the lease document is no event id)');
    });
  });

  describe('client list', () => {
    const index = `${PREFIX}-webhook-clients`;
    const options = { supportedUserAgents: ['platform-api', 'service-eventhandler'] };

    it('clients created at once through two proxies all stay, and each proxy reloads the other\'s', async () => {
      const storeA = new ElasticsearchWebhookClientStore(es, index);
      await storeA.open(0);
      const a = await WebhookClientRegistry.open(storeA, options);
      const b = await WebhookClientRegistry.open(new ElasticsearchWebhookClientStore(es, index), options);
      const created = await Promise.all([a, b, a, b].map((registry) => registry.create('platform-api')));
      await a.reload();
      await b.reload();
      for (const registry of [a, b]) {
        assert.deepEqual(registry.all().map((c) => c.id).sort(), created.map((c) => c.id).sort());
      }
      await b.delete([created[0]!.id]);
      assert.equal(await a.reload(), true);
      assert.equal(a.findByKey(created[0]!.api_key), undefined);
      const fresh = await WebhookClientRegistry.open(new ElasticsearchWebhookClientStore(es, index), options);
      assert.equal(fresh.all().length, 3, 'the list outlives the proxies that wrote it');
    });
  });
});
