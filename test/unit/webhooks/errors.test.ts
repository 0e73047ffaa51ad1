import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateEventError, WEBHOOK_OK_BODY, webhookError } from '../../../src/webhooks/errors.js';

describe('webhook responses', () => {
  it('errors have the shape {status:"error", error, message}', () => {
    assert.deepEqual(webhookError(400, 'missing_header', 'x'), {
      httpStatus: 400,
      body: { status: 'error', error: 'missing_header', message: 'x' },
    });
  });

  it('a duplicate event id is 409 duplicate_event', () => {
    const error = duplicateEventError();
    assert.equal(error.httpStatus, 409);
    assert.equal(error.body.error, 'duplicate_event');
    assert.match(error.body.message, /already processed/);
  });

  it('success is {"status":"ok"}', () => {
    assert.equal(JSON.stringify(WEBHOOK_OK_BODY), '{"status":"ok"}');
  });
});
