import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import { ActorUnavailableError } from '../../../src/runtime/rpc.js';
import { DUPLICATE_EVENT, WEBHOOK_OK_JSON } from '../../../src/webhooks/errors.js';
import { unavailableAs503 } from '../../../src/runtime/unavailable-as-503.js';

describe('webhook responses', () => {
  it('a duplicate event id is 409 duplicate_event', () => {
    const error = DUPLICATE_EVENT;
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'duplicate_event');
    assert.match(error.message, /already processed/);
  });

  it('success is {"status":"ok"}', () => {
    assert.deepEqual(JSON.parse(WEBHOOK_OK_JSON), { status: 'ok' });
  });

  it('an actor that is down becomes 503; other errors pass through unchanged', () => {
    const mapped = unavailableAs503(new ActorUnavailableError('dedupe', 'restarting'));
    assert.ok(mapped instanceof HttpError);
    assert.equal(mapped.status, 503);
    assert.match(mapped.message, /dedupe/);
    const other = new Error('disk full');
    assert.equal(unavailableAs503(other), other);
  });
});
