import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { WebhookClientReplica } from '../../../src/webhooks/replica.js';

const a: WebhookClient = { id: 'a', user_agent: 'platform-api', api_key: 'key-a', created_at: '2025-01-01T00:00:00.000Z' };
const b: WebhookClient = { id: 'b', user_agent: 'platform-api', api_key: 'key-b', created_at: '2025-01-01T00:00:00.000Z' };

describe('WebhookClientReplica', () => {
  it('answers 503 until the first copy arrives (it cannot tell a valid key from an unknown one)', () => {
    const replica = new WebhookClientReplica();
    assert.equal(replica.size, undefined);
    assert.throws(() => replica.findByKey('key-a'), (err: unknown) => err instanceof HttpError && err.status === 503);
  });

  it('each copy replaces the previous one as a whole', () => {
    const replica = new WebhookClientReplica();
    replica.replace([a, b]);
    assert.equal(replica.findByKey('key-b')?.id, 'b');
    replica.replace([a]);
    assert.equal(replica.findByKey('key-b'), undefined, 'a deleted client is gone at once');
    assert.equal(replica.findByKey('key-a')?.id, 'a');
    assert.equal(replica.size, 1);
  });
});
