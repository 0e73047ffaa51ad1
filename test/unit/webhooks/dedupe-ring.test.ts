import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DedupeRing } from '../../../src/webhooks/dedupe-ring.js';

describe('DedupeRing', () => {
  it('accepts a new id once and rejects the repeat', () => {
    const ring = new DedupeRing();
    assert.equal(ring.checkAndInsert('a'), true);
    assert.equal(ring.checkAndInsert('a'), false);
    assert.equal(ring.size, 1);
  });

  it('remembers exactly the last 100 ids by default', () => {
    const ring = new DedupeRing();
    for (let i = 1; i <= 100; i++) assert.equal(ring.checkAndInsert(`id-${i}`), true);
    assert.equal(ring.checkAndInsert('id-1'), false, 'the oldest of 100 is still remembered');
    assert.equal(ring.checkAndInsert('id-101'), true);
    assert.equal(ring.has('id-1'), false, 'the 101st id pushed out the oldest');
    assert.equal(ring.checkAndInsert('id-2'), false);
    assert.equal(ring.checkAndInsert('id-1'), true, 'an evicted id is accepted again');
    assert.equal(ring.size, 100);
  });

  it('a rejected repeat does not change the order of eviction', () => {
    const ring = new DedupeRing(2);
    ring.checkAndInsert('a');
    ring.checkAndInsert('b');
    assert.equal(ring.checkAndInsert('a'), false);
    ring.checkAndInsert('c');
    assert.equal(ring.has('a'), false);
    assert.equal(ring.has('b'), true);
  });

  it('forgets an id so that it can be admitted again, without a stale slot evicting it later', () => {
    const ring = new DedupeRing(3);
    ring.checkAndInsert('a');
    ring.checkAndInsert('b');
    ring.forget('a');
    assert.equal(ring.has('a'), false);
    ring.checkAndInsert('c');
    assert.equal(ring.checkAndInsert('a'), true, 'a forgotten id is new again');
    ring.checkAndInsert('d'); // takes the slot after 'c': the ring is now c, a, d
    assert.equal(ring.has('a'), true, 'the emptied slot of the first "a" did not drop the second');
    assert.equal(ring.has('b'), false);
    ring.forget('never-seen');
    assert.equal(ring.size, 3);
  });

  it('rejects a capacity that is not a positive integer', () => {
    assert.throws(() => new DedupeRing(0), RangeError);
    assert.throws(() => new DedupeRing(1.5), RangeError);
  });
});
