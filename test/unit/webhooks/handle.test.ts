import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { DedupeRing } from '../../../src/webhooks/dedupe-ring.js';
import type { AcceptedWebhookEvent } from '../../../src/webhooks/dispatch.js';
import { handleWebhookRequest, type WebhookRequest } from '../../../src/webhooks/handle.js';

const NOW_MS = 1_700_000_000_000;
const client: WebhookClient = { id: 'c1', user_agent: 'platform-api', api_key: 'key-1', created_at: '2025-01-01T00:00:00.000Z' };

function setup() {
  const ring = new DedupeRing();
  const processed: AcceptedWebhookEvent[] = [];
  const deps = {
    registry: { findByKey: (key: string) => (key === client.api_key ? client : undefined) },
    intake: { maxTimestampAgeMs: 300_000 },
    isNewEvent: async (id: string) => ring.checkAndInsert(id),
    process: (event: AcceptedWebhookEvent) => void processed.push(event),
  };
  return { ring, processed, deps };
}

function request(eventId: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest {
  return {
    headers: {
      'x-webhook-key': client.api_key,
      'x-webhook-timestamp': String(NOW_MS / 1000),
      'x-webhook-event-id': eventId,
      'user-agent': 'platform-api/2.0',
    },
    contentType: 'application/json',
    body: '{"a":1}',
    nowMs: NOW_MS,
    ...overrides,
  };
}

describe('handleWebhookRequest', () => {
  it('accepts, processes and answers {"status":"ok"}; the same id again is 409', async () => {
    const { deps, processed } = setup();
    assert.deepEqual(await handleWebhookRequest(request('e1'), deps), { httpStatus: 200, body: { status: 'ok' } });
    assert.deepEqual(processed, [{ client, eventId: 'e1', payload: { a: 1 } }]);
    const again = await handleWebhookRequest(request('e1'), deps);
    assert.equal(again.httpStatus, 409);
    assert.equal(processed.length, 1);
  });

  it('a rejected body does not use up the event id', async () => {
    const { deps, ring } = setup();
    const bad = await handleWebhookRequest(request('e2', { body: '[1]' }), deps);
    assert.equal(bad.httpStatus, 400);
    assert.equal(ring.has('e2'), false);
    assert.equal((await handleWebhookRequest(request('e2'), deps)).httpStatus, 200);
  });

  it('a stale request with an already seen id is 401, not 409', async () => {
    const { deps } = setup();
    await handleWebhookRequest(request('e3'), deps);
    const stale = request('e3', { nowMs: NOW_MS + 301_000 });
    const response = await handleWebhookRequest(stale, deps);
    assert.equal(response.httpStatus, 401);
  });

  it('header checks come before the body check', async () => {
    const { deps } = setup();
    const response = await handleWebhookRequest(request('e4', { contentType: 'text/plain', headers: {} }), deps);
    assert.equal(response.httpStatus, 400);
  });
});
