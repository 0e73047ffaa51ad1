import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { DedupeRing } from '../../../src/webhooks/dedupe-ring.js';
import type { AcceptedWebhookEvent } from '../../../src/webhooks/dispatch.js';
import { handleWebhookRequest, type WebhookRequest } from '../../../src/webhooks/handle.js';

const NOW_MS = 1_700_000_000_000;
const client: WebhookClient = { id: 'c1', user_agent: 'platform-api', api_key: 'key-1', created_at: '2025-01-01T00:00:00.000Z' };

/** The ring as the dedupe actor serves it; counts the calls so that the number of hops shows. */
function setup(process: (event: AcceptedWebhookEvent) => unknown = () => undefined) {
  const ring = new DedupeRing();
  const calls: string[] = [];
  const processed: AcceptedWebhookEvent[] = [];
  const deps = {
    registry: { findByKey: (key: string) => (key === client.api_key ? client : undefined) },
    intake: { maxTimestampAgeMs: 300_000 },
    eventIds: {
      seen: async (id: string) => (calls.push('seen'), ring.has(id)),
      admit: async (id: string) => (calls.push('admit'), ring.checkAndInsert(id)),
      forget: async (id: string) => (calls.push('forget'), ring.forget(id)),
    },
    process: (event: AcceptedWebhookEvent) => {
      processed.push(event);
      return process(event);
    },
  };
  return { ring, calls, processed, deps };
}

function request(eventId: string, overrides: Partial<WebhookRequest> & { contentType?: string; text?: string } = {}): WebhookRequest {
  return {
    headers: {
      'x-webhook-key': client.api_key,
      'x-webhook-timestamp': String(NOW_MS / 1000),
      'x-webhook-event-id': eventId,
      'user-agent': 'platform-api/2.0',
      'content-type': overrides.contentType ?? 'application/json',
    },
    body: async () => overrides.text ?? '{"a":1}',
    nowMs: NOW_MS,
    ...overrides,
  };
}

async function statusOf(promise: Promise<void>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (err) {
    assert.ok(err instanceof HttpError, `expected an HttpError, got ${String(err)}`);
    return err.status;
  }
}

describe('handleWebhookRequest', () => {
  it('accepts and processes with one call to the ring; the same id again is 409', async () => {
    const { deps, processed, calls } = setup();
    assert.equal(await statusOf(handleWebhookRequest(request('e1'), deps)), 200);
    assert.deepEqual(processed, [{ client, eventId: 'e1', payload: { a: 1 }, payloadJson: '{"a":1}' }]);
    assert.deepEqual(calls, ['admit']);
    assert.equal(await statusOf(handleWebhookRequest(request('e1'), deps)), 409);
    assert.equal(processed.length, 1);
  });

  it('a rejected body does not use up the event id', async () => {
    const { deps, ring } = setup();
    assert.equal(await statusOf(handleWebhookRequest(request('e2', { text: '[1]' }), deps)), 400);
    assert.equal(ring.has('e2'), false);
    assert.equal(await statusOf(handleWebhookRequest(request('e2'), deps)), 200);
  });

  it('a duplicate id with a bad body is 409 (the id check comes before the body checks)', async () => {
    const { deps } = setup();
    await handleWebhookRequest(request('e3'), deps);
    assert.equal(await statusOf(handleWebhookRequest(request('e3', { contentType: 'text/plain' }), deps)), 409);
    const tooLarge = request('e3', { body: () => Promise.reject(new HttpError(413, 'body_too_large', 'too large')) });
    assert.equal(await statusOf(handleWebhookRequest(tooLarge, deps)), 409);
    assert.equal(await statusOf(handleWebhookRequest({ ...tooLarge, headers: { ...tooLarge.headers, 'x-webhook-event-id': 'e4' } }, deps)), 413);
    assert.equal(await statusOf(handleWebhookRequest(request('e5', { contentType: 'text/plain' }), deps)), 415);
  });

  it('a stale request with an already seen id is 401, not 409', async () => {
    const { deps } = setup();
    await handleWebhookRequest(request('e6'), deps);
    assert.equal(await statusOf(handleWebhookRequest(request('e6', { nowMs: NOW_MS + 301_000 }), deps)), 401);
  });

  it('header checks come before the body check and never reach the ring', async () => {
    const { deps, calls } = setup();
    const noHeaders = { ...request('e7', { contentType: 'text/plain' }), headers: {} };
    assert.equal(await statusOf(handleWebhookRequest(noHeaders, deps)), 400);
    assert.deepEqual(calls, []);
  });

  it('a failed processing step forgets the id, so that the sender can retry it', async () => {
    const { deps, ring, calls } = setup(() => Promise.reject(new Error('store down')));
    await assert.rejects(handleWebhookRequest(request('e8'), deps), /store down/);
    assert.deepEqual(calls, ['admit', 'forget']);
    assert.equal(ring.has('e8'), false);
  });

  it('a failing ring fails the request (the caller answers 503), never accepts it', async () => {
    const { deps, processed } = setup();
    const down = { ...deps, eventIds: { ...deps.eventIds, admit: () => Promise.reject(new Error('dedupe down')) } };
    await assert.rejects(handleWebhookRequest(request('e9'), down), /dedupe down/);
    assert.equal(processed.length, 0);
  });
});
