import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { admissionsOf, eventDocId } from '../../../src/webhooks/cluster-event-ids.js';

describe('the shared event ids: what a _bulk of creates answers', () => {
  it('201 admits, 409 is a duplicate, in the order of the events', () => {
    assert.deepEqual(admissionsOf([{ status: 201 }, { status: 409 }, { status: 201 }]), ['admitted', 'duplicate', 'admitted']);
  });

  it('any other status fails that item alone (its id is not held), naming the error; the others stand', () => {
    assert.deepEqual(
      admissionsOf([{ status: 201 }, { status: 429, error: { type: 'es_rejected_execution_exception', reason: 'queue full' } }, {}]),
      ['admitted', { failed: 'status 429: es_rejected_execution_exception: queue full' }, { failed: 'status undefined: no error type: ' }],
    );
  });
});

describe('the document id of an event id', () => {
  it('is the SHA-256 of its UTF-8 bytes in hex, so ids of any length and any characters fit Elasticsearch', () => {
    const long = 'x'.repeat(2000);
    assert.equal(eventDocId(long), createHash('sha256').update(long).digest('hex'));
    assert.equal(eventDocId('ä').length, 64);
    assert.notEqual(eventDocId('ä'), eventDocId('a'));
    assert.equal(eventDocId('evt-1'), eventDocId('evt-1'));
  });
});
