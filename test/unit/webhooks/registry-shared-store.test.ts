// The registry over a store several proxies share: a change made on a list another proxy changed first is redone
// on that list, and reload() takes the other proxy's changes. The store here is an in-memory compare-and-set, the
// contract ElasticsearchWebhookClientStore keeps with if_seq_no (test/integration/webhooks/cluster-state.test.ts
// runs the same against Elasticsearch).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { WebhookClientRegistry } from '../../../src/webhooks/registry.js';
import { ClientListChangedError, type WebhookClientStore } from '../../../src/webhooks/store.js';

/** The shared document: a list and its version. */
class SharedList {
  clients: readonly WebhookClient[] = [];
  version = 0;
}

/** One proxy's view: saves succeed only on the version it loaded last. */
class CompareAndSetStore implements WebhookClientStore {
  private loaded = 0;
  saves = 0;
  constructor(private readonly shared: SharedList) {}
  async load(): Promise<WebhookClient[]> {
    this.loaded = this.shared.version;
    return [...this.shared.clients];
  }
  async save(clients: readonly WebhookClient[]): Promise<void> {
    this.saves++;
    if (this.shared.version !== this.loaded) throw new ClientListChangedError('changed');
    this.shared.clients = clients;
    this.loaded = ++this.shared.version;
  }
}

const options = { supportedUserAgents: ['platform-api'] };

describe('WebhookClientRegistry over a shared store', () => {
  it('redoes a create on the list another proxy saved meanwhile: both clients stay', async () => {
    const shared = new SharedList();
    const a = await WebhookClientRegistry.open(new CompareAndSetStore(shared), options);
    const b = await WebhookClientRegistry.open(new CompareAndSetStore(shared), options);
    const first = await a.create('platform-api');
    const second = await b.create('platform-api');
    assert.deepEqual(shared.clients.map((c) => c.id), [first.id, second.id]);
    assert.equal(b.findByKey(first.api_key)?.id, first.id, 'b learnt the other proxy\'s client on the way');
  });

  it('a delete of a client another proxy deleted first answers not found, and saves nothing', async () => {
    const shared = new SharedList();
    const a = await WebhookClientRegistry.open(new CompareAndSetStore(shared), options);
    const client = await a.create('platform-api');
    const storeB = new CompareAndSetStore(shared);
    const b = await WebhookClientRegistry.open(storeB, options);
    await a.delete([client.id]);
    assert.deepEqual(await b.delete([client.id]), { deleted: [], notFound: [client.id] });
    assert.equal(storeB.saves, 1, 'one refused save, then the reloaded list had nothing to delete');
    assert.equal(b.findByKey(client.api_key), undefined);
  });

  it('gives up after five refused saves with the store\'s error', async () => {
    const shared = new SharedList();
    const store = new CompareAndSetStore(shared);
    store.save = async () => {
      store.saves++;
      throw new ClientListChangedError('changed again');
    };
    const registry = await WebhookClientRegistry.open(store, options);
    await assert.rejects(registry.create('platform-api'), ClientListChangedError);
    assert.equal(store.saves, 5);
    assert.deepEqual(registry.all(), []);
  });

  it('reload() answers whether another proxy changed the list, and takes its keys', async () => {
    const shared = new SharedList();
    const a = await WebhookClientRegistry.open(new CompareAndSetStore(shared), options);
    const b = await WebhookClientRegistry.open(new CompareAndSetStore(shared), options);
    assert.equal(await b.reload(), false);
    const client = await a.create('platform-api');
    assert.equal(b.findByKey(client.api_key), undefined);
    assert.equal(await b.reload(), true);
    assert.equal(b.findByKey(client.api_key)?.id, client.id);
    assert.equal(await b.reload(), false);
    await a.delete([client.id]);
    assert.equal(await b.reload(), true);
    assert.equal(b.findByKey(client.api_key), undefined);
  });
});
