import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { WebhookClientReplica } from '../../../src/webhooks/replica.js';

const a: WebhookClient = { id: 'a', user_agent: 'platform-api', api_key: 'key-a', created_at: '2025-01-01T00:00:00.000Z' };
const b: WebhookClient = { id: 'b', user_agent: 'platform-api', api_key: 'key-b', created_at: '2025-01-01T00:00:00.000Z' };

const is503 = (err: unknown) => err instanceof HttpError && err.status === 503 && err.code === 'registry_unavailable';

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('WebhookClientReplica', () => {
  it('answers 503 until the first copy arrives (it cannot tell a valid key from an unknown one)', () => {
    const replica = new WebhookClientReplica();
    assert.equal(replica.size, undefined);
    assert.equal(replica.state, 'not loaded');
    assert.throws(() => replica.findByKey('key-a'), is503);
  });

  it('each copy replaces the previous one as a whole', () => {
    const t = clock();
    const replica = new WebhookClientReplica(t.now);
    replica.replace('v1', [a, b], t.now() + 1000);
    assert.equal(replica.findByKey('key-b')?.id, 'b');
    replica.replace('v2', [a], t.now() + 1000);
    assert.equal(replica.findByKey('key-b'), undefined, 'a deleted client is gone at once');
    assert.equal(replica.findByKey('key-a')?.id, 'a');
    assert.equal(replica.size, 1);
  });

  it('refuses every key with 503 once the store\'s lease on the copy has ended, until it is renewed', () => {
    const t = clock();
    const replica = new WebhookClientReplica(t.now);
    replica.replace('v1', [a], t.now() + 1000);
    t.advance(999);
    assert.equal(replica.findByKey('key-a')?.id, 'a');
    t.advance(1);
    assert.equal(replica.state, 'unconfirmed');
    assert.throws(() => replica.findByKey('key-a'), is503, 'a copy nobody vouches for may hold a deleted key');
    assert.equal(replica.renew('v1', t.now() + 1000), true);
    assert.equal(replica.state, 'current');
    assert.equal(replica.findByKey('key-a')?.id, 'a');
  });

  it('a renewal naming another version ends the lease at once (a newer list exists)', () => {
    const t = clock();
    const replica = new WebhookClientReplica(t.now);
    replica.replace('v1', [a], t.now() + 1000);
    assert.equal(replica.renew('v2', t.now() + 1000), false);
    assert.throws(() => replica.findByKey('key-a'), is503);
    assert.equal(new WebhookClientReplica(t.now).renew('v1', t.now() + 1000), false, 'a new thread holds no version');
  });

  it('a renewal that arrives late does not shorten or revive a lease beyond what it vouched for', () => {
    const t = clock();
    const replica = new WebhookClientReplica(t.now);
    replica.replace('v1', [a], t.now() + 1000);
    const sentAt = t.now();
    t.advance(5000); // the thread was stuck; the renewal sent at `sentAt` is only applied now
    replica.renew('v1', sentAt + 1000);
    assert.throws(() => replica.findByKey('key-a'), is503);
  });
});
