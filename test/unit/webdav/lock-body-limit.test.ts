// How much of a LOCK body the service reads (src/webdav/methods/lock.ts): sixteen times the owner bound, at least
// 64 KiB, at most http.max_body.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lockBodyLimit } from '../../../src/webdav/methods/lock.js';

const KiB = 1024;
const config = (maxOwner: number, maxBody = 1024 * KiB) => ({ http: { max_body: maxBody }, webdav: { locks: { max_owner_size: maxOwner } } }) as Parameters<typeof lockBodyLimit>[0];

describe('lockBodyLimit', () => {
  it('is 64 KiB for the default owner bound of 4 KiB and for smaller ones', () => {
    assert.equal(lockBodyLimit(config(4 * KiB)), 64 * KiB);
    assert.equal(lockBodyLimit(config(1 * KiB)), 64 * KiB);
  });

  it('grows with a larger owner bound, sixteen times it', () => {
    assert.equal(lockBodyLimit(config(8 * KiB)), 128 * KiB);
  });

  it('never passes http.max_body', () => {
    assert.equal(lockBodyLimit(config(128 * KiB)), 1024 * KiB);
    assert.equal(lockBodyLimit(config(4 * KiB, 32 * KiB)), 32 * KiB);
  });
});
