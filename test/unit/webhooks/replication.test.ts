// The store side of the client list replication, with fronts that are real replicas behind fake
// channels: one that answers, one that fails for a while, one that never answers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import { ActorUnavailableError } from '../../../src/runtime/rpc.js';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { WebhookClientReplica } from '../../../src/webhooks/replica.js';
import { ClientListReplication, type ReplicaLink } from '../../../src/webhooks/replication.js';

const LEASE_MS = 300;
const client = (id: string): WebhookClient => ({ id, user_agent: 'platform-api', api_key: `key-${id}`, created_at: '2025-01-01T00:00:00.000Z' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the replica accepts the key now: the client id, undefined for 401, or 503. */
function verdict(replica: WebhookClientReplica, key: string): string | undefined {
  try {
    return replica.findByKey(key)?.id;
  } catch (err) {
    if (err instanceof HttpError) return String(err.status);
    throw err;
  }
}

type Behaviour = 'answers' | 'fails' | 'silent';

/** A front: a real replica behind a channel whose behaviour the test switches. */
function fakeFront() {
  const front = { replica: new WebhookClientReplica(), behaviour: 'answers' as Behaviour, calls: 0, connected: true };
  const deliver = <T>(apply: () => T): Promise<T> => {
    front.calls++;
    if (front.behaviour === 'fails') return Promise.reject(new ActorUnavailableError('http-front', 'no answer within 30000 ms'));
    if (front.behaviour === 'silent') return new Promise<T>(() => {}); // never delivered, never answered
    return Promise.resolve(apply());
  };
  const link: ReplicaLink = {
    replaceWebhookClients: (version, clients, validUntil) => deliver(() => front.replica.replace(version, clients, validUntil)),
    renewWebhookClients: (version, validUntil) => deliver(() => front.replica.renew(version, validUntil)),
  };
  return { front, link };
}

function setUp(names: string[]) {
  let clients = [client('a'), client('b')];
  const fronts = new Map(names.map((name) => [name, fakeFront()]));
  const unconfirmed: string[] = [];
  const replication = new ClientListReplication({
    clients: () => clients,
    link: (name) => fronts.get(name)!.link,
    isConnected: (name) => fronts.get(name)!.front.connected,
    leaseMs: LEASE_MS,
    onUnconfirmed: (name) => unconfirmed.push(name),
  });
  for (const name of names) replication.connected(name);
  const remove = (id: string) => { clients = clients.filter((c) => c.id !== id); };
  return { replication, front: (name: string) => fronts.get(name)!.front, remove, unconfirmed };
}

describe('ClientListReplication', () => {
  it('a change resolves when every front has the new list', async () => {
    const { replication, front, remove } = setUp(['f1', 'f2']);
    await sleep(10);
    assert.equal(verdict(front('f1').replica, 'key-a'), 'a');
    remove('a');
    await replication.changed();
    for (const name of ['f1', 'f2']) assert.equal(verdict(front(name).replica, 'key-a'), undefined, `${name} rejects the deleted key (401)`);
    replication.stop();
  });

  it('renews the fronts\' leases, so that keys keep working while nothing changes', async () => {
    const { replication, front } = setUp(['f1']);
    await sleep(3 * LEASE_MS);
    assert.equal(verdict(front('f1').replica, 'key-b'), 'b');
    assert.ok(front('f1').calls >= 6, `renewed every third of the lease (${front('f1').calls} calls)`);
    replication.stop();
  });

  it('retries a front that fails until it has the list, and the change waits for it', async () => {
    const { replication, front, remove, unconfirmed } = setUp(['f1', 'f2']);
    await sleep(10);
    front('f2').behaviour = 'fails';
    remove('a');
    const change = replication.changed();
    await sleep(LEASE_MS / 3);
    const callsWhileFailing = front('f2').calls;
    assert.ok(callsWhileFailing >= 3, `retried (${callsWhileFailing} calls)`);
    assert.deepEqual(unconfirmed, ['f2'], 'told once per streak of failures');
    front('f2').behaviour = 'answers';
    await change;
    assert.equal(verdict(front('f2').replica, 'key-a'), undefined, 'the retried front has the new list');
    replication.stop();
  });

  it('a front that never acknowledges: when the delete returns, it refuses the deleted key (503), never accepts it', async () => {
    const { replication, front, remove } = setUp(['f1', 'f2']);
    await sleep(10);
    front('f2').behaviour = 'silent';
    remove('a');
    const started = Date.now();
    await replication.changed();
    assert.ok(Date.now() - started <= LEASE_MS + 100, 'the change waits at most one lease');
    assert.equal(verdict(front('f1').replica, 'key-a'), undefined);
    assert.equal(verdict(front('f2').replica, 'key-a'), '503', 'the silent front holds the old list but no longer trusts it');
    assert.equal(verdict(front('f2').replica, 'key-b'), '503');
    replication.stop();
  });

  it('a front that went away is not waited for; its successor gets the list before it accepts keys', async () => {
    const { replication, front, remove } = setUp(['f1']);
    await sleep(10);
    front('f1').connected = false;
    front('f1').behaviour = 'fails';
    remove('a');
    const started = Date.now();
    await replication.changed();
    assert.ok(Date.now() - started < LEASE_MS / 2, 'a thread that is gone accepts nothing');
    // The restarted thread: a fresh replica behind the same name.
    const successor = new WebhookClientReplica();
    front('f1').replica = successor;
    assert.equal(verdict(successor, 'key-b'), '503', 'no list yet: 503, not 401');
    Object.assign(front('f1'), { connected: true, behaviour: 'answers' });
    replication.connected('f1');
    await sleep(10);
    assert.equal(verdict(successor, 'key-a'), undefined);
    assert.equal(verdict(successor, 'key-b'), 'b');
    replication.stop();
  });
});
