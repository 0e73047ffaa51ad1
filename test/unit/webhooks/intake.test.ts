import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { HttpError } from '../../../src/http/http-error.js';
import { checkWebhookHeaders, type WebhookIntakeHeaders } from '../../../src/webhooks/intake.js';
import type { WebhookClientLookup } from '../../../src/webhooks/key-index.js';

const NOW_MS = 1_700_000_000_500;
const NOW_S = Math.floor(NOW_MS / 1000);

const client: WebhookClient = {
  id: 'c1',
  user_agent: 'service-eventhandler',
  api_key: 'k'.repeat(43),
  created_at: '2024-01-01T00:00:00.000Z',
};
const lookup: WebhookClientLookup = { findByKey: (key) => (key === client.api_key ? client : undefined) };

function headers(overrides: Partial<Record<keyof WebhookIntakeHeaders, string | undefined>> = {}): WebhookIntakeHeaders {
  return {
    'x-webhook-key': client.api_key,
    'x-webhook-timestamp': String(NOW_S),
    'x-webhook-event-id': 'evt-1',
    'user-agent': 'service-eventhandler/1.2.3',
    ...overrides,
  };
}

function check(h: WebhookIntakeHeaders) {
  return checkWebhookHeaders(h, NOW_MS, lookup, { maxTimestampAgeMs: 300_000 });
}

function errorOf(h: WebhookIntakeHeaders) {
  const result = check(h);
  assert.equal(result.ok, false, 'expected a rejection');
  return result.ok ? assert.fail() : result.error;
}

describe('checkWebhookHeaders', () => {
  it('accepts a valid request and returns the matched client', () => {
    const result = check(headers());
    assert.ok(result.ok);
    assert.equal(result.client, client);
    assert.equal(result.eventId, 'evt-1');
    assert.equal(result.timestamp, NOW_S);
  });

  it('400 missing_header names every missing or empty header', () => {
    const error = errorOf(headers({ 'x-webhook-key': undefined, 'x-webhook-event-id': '  ' }));
    assert.equal(error.status, 400);
    assert.ok(error instanceof HttpError, 'the shared error shape of src/http');
    assert.equal(error.code, 'missing_header');
    assert.match(error.message, /x-webhook-key/);
    assert.match(error.message, /x-webhook-event-id/);
    assert.doesNotMatch(error.message, /x-webhook-timestamp/);
  });

  it('missing header wins over an unknown key (400, not 401)', () => {
    const error = errorOf(headers({ 'x-webhook-key': 'unknown', 'x-webhook-timestamp': undefined }));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'missing_header');
  });

  it('unknown key is 401 even when the timestamp is stale too', () => {
    const error = errorOf(headers({ 'x-webhook-key': 'unknown', 'x-webhook-timestamp': String(NOW_S - 10_000) }));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_key');
  });

  it('messages never contain the key', () => {
    const secret = 'secret-key-value-that-must-not-leak';
    for (const h of [
      headers({ 'x-webhook-key': secret }),
      headers({ 'user-agent': 'platform-api' }),
      headers({ 'x-webhook-timestamp': 'abc' }),
    ]) {
      const error = errorOf(h);
      assert.ok(!error.message.includes(secret));
      assert.ok(!error.message.includes(client.api_key));
    }
  });

  describe('User-Agent', () => {
    it('matches exactly', () => assert.ok(check(headers({ 'user-agent': 'service-eventhandler' })).ok));
    it('matches followed by /version', () => assert.ok(check(headers({ 'user-agent': 'service-eventhandler/1.2.3' })).ok));
    for (const ua of ['platform-api/1.0', 'service-eventhandler-evil', 'Service-Eventhandler/1.0', 'x service-eventhandler']) {
      it(`rejects ${ua} with 401 user_agent_mismatch`, () => {
        const error = errorOf(headers({ 'user-agent': ua }));
        assert.equal(error.status, 401);
        assert.equal(error.code, 'user_agent_mismatch');
      });
    }
    it('rejects a missing User-Agent with 401', () => {
      assert.equal(errorOf(headers({ 'user-agent': undefined })).status, 401);
    });
  });

  describe('timestamp', () => {
    it('accepts now and exactly 300 s old', () => {
      assert.ok(check(headers({ 'x-webhook-timestamp': String(NOW_S) })).ok);
      assert.ok(check(headers({ 'x-webhook-timestamp': String(NOW_S - 300) })).ok);
    });
    it('rejects 301 s old with 401 timestamp_expired', () => {
      const error = errorOf(headers({ 'x-webhook-timestamp': String(NOW_S - 301) }));
      assert.equal(error.status, 401);
      assert.equal(error.code, 'timestamp_expired');
    });
    it('rejects +5 s with 401 timestamp_in_future', () => {
      const error = errorOf(headers({ 'x-webhook-timestamp': String(NOW_S + 5) }));
      assert.equal(error.status, 401);
      assert.equal(error.code, 'timestamp_in_future');
      assert.doesNotMatch(error.message, /milliseconds/);
    });
    it('rejects milliseconds as future and says seconds are required', () => {
      const error = errorOf(headers({ 'x-webhook-timestamp': String(NOW_MS) }));
      assert.equal(error.status, 401);
      assert.equal(error.code, 'timestamp_in_future');
      assert.match(error.message, /milliseconds; seconds are required/);
    });
    for (const bad of ['abc', '12.5', '-5', '1e9', '0x10', '']) {
      it(`rejects ${JSON.stringify(bad)}`, () => {
        const error = errorOf(headers({ 'x-webhook-timestamp': bad }));
        // an empty header is a missing header (400); anything else is a bad timestamp (401)
        assert.equal(error.status, bad === '' ? 400 : 401);
        assert.equal(error.code, bad === '' ? 'missing_header' : 'invalid_timestamp');
      });
    }
    it('honours a configured maximum age', () => {
      const result = checkWebhookHeaders(headers({ 'x-webhook-timestamp': String(NOW_S - 61) }), NOW_MS, lookup, {
        maxTimestampAgeMs: 60_000,
      });
      assert.equal(result.ok, false);
    });
  });

  it('valid key + stale timestamp + an already seen id is 401: the header checks stop before the ring', () => {
    // the id was accepted before, but check 3 fails first, so the caller never reaches the ring (409)
    const error = errorOf(headers({ 'x-webhook-timestamp': String(NOW_S - 301), 'x-webhook-event-id': 'evt-seen' }));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'timestamp_expired');
  });
});
