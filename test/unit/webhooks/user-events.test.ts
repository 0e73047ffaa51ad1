import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UserEventsCache, UserEventTooLargeError, userEventSize } from '../../../src/webhooks/user-events.js';

const HOUR = 60 * 60 * 1000;

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const event = (eventId: string) => ({ eventId, clientId: 'c1', payload: { username: 'anna', eventId } });

describe('UserEventsCache', () => {
  it('lists a user’s events newest first, case-insensitively by user name', () => {
    const t = clock();
    const cache = new UserEventsCache({ now: t.now });
    cache.add('Anna', event('e1'));
    t.advance(1000);
    cache.add('anna', event('e2'));
    assert.deepEqual(cache.list('ANNA').map((e) => e.eventId), ['e2', 'e1']);
    assert.deepEqual(cache.list('bob'), []);
  });

  it('keeps events 24 h by default, each event expiring on its own', () => {
    const t = clock();
    const cache = new UserEventsCache({ now: t.now });
    cache.add('anna', event('old'));
    t.advance(23 * HOUR);
    cache.add('anna', event('new'));
    t.advance(HOUR - 1);
    assert.deepEqual(cache.list('anna').map((e) => e.eventId), ['new', 'old']);
    t.advance(1);
    assert.deepEqual(cache.list('anna').map((e) => e.eventId), ['new']);
    t.advance(23 * HOUR);
    assert.deepEqual(cache.list('anna'), []);
  });

  it('bounds the events per user, dropping the oldest', () => {
    const cache = new UserEventsCache({ maxPerUser: 3 });
    for (const id of ['e1', 'e2', 'e3', 'e4']) cache.add('anna', event(id));
    assert.deepEqual(cache.list('anna').map((e) => e.eventId), ['e4', 'e3', 'e2']);
  });

  it('bounds the total, dropping the least recently active users', () => {
    const cache = new UserEventsCache({ maxPerUser: 2, maxTotal: 4 });
    cache.add('anna', event('a1'));
    cache.add('anna', event('a2'));
    cache.add('bob', event('b1'));
    cache.add('carl', event('c1'));
    cache.add('carl', event('c2'));
    assert.deepEqual(cache.list('anna'), []);
    assert.deepEqual(cache.list('bob').map((e) => e.eventId), ['b1']);
    assert.equal(cache.list('carl').length, 2);
    assert.ok(cache.totalEvents <= 4);
  });

  /** An event of exactly `bytes` bytes as JSON. */
  const sized = (eventId: string, bytes: number) => {
    const payload = { username: 'x', pad: '' };
    payload.pad = 'p'.repeat(bytes - userEventSize(payload));
    return { eventId, clientId: 'c1', payload };
  };

  it('bounds the total in bytes, dropping the least recently active users first', () => {
    const cache = new UserEventsCache({ maxBytes: 1000, maxEventSize: 400 });
    cache.add('anna', sized('a1', 300));
    cache.add('bob', sized('b1', 300));
    cache.add('bob', sized('b2', 300));
    assert.equal(cache.totalBytes, 900);
    cache.add('carl', sized('c1', 300)); // 1200 bytes: anna, the least recently active, goes
    assert.deepEqual(cache.list('anna'), []);
    assert.deepEqual(cache.list('bob').map((e) => e.eventId), ['b2', 'b1']);
    assert.deepEqual(cache.list('carl').map((e) => e.eventId), ['c1']);
    assert.equal(cache.totalBytes, 900);
    assert.equal(cache.totalEvents, 3);
  });

  it('drops a user\'s own oldest events when that user alone is over the byte bound', () => {
    const cache = new UserEventsCache({ maxBytes: 1000, maxEventSize: 400 });
    for (const id of ['e1', 'e2', 'e3', 'e4']) cache.add('anna', sized(id, 400));
    assert.deepEqual(cache.list('anna').map((e) => e.eventId), ['e4', 'e3']);
    assert.equal(cache.totalBytes, 800);
    assert.equal(cache.totalEvents, 2);
  });

  it('refuses an event over max_event_size and keeps what it has', () => {
    const cache = new UserEventsCache({ maxBytes: 1000, maxEventSize: 400 });
    cache.add('anna', sized('small', 400));
    assert.throws(() => cache.add('anna', sized('big', 401)), UserEventTooLargeError);
    assert.deepEqual(cache.list('anna').map((e) => e.eventId), ['small']);
    assert.equal(cache.totalBytes, 400);
  });

  it('keeps counting events and bytes right through expiry and the per-user bound', () => {
    const t = clock();
    const cache = new UserEventsCache({ now: t.now, maxPerUser: 2, maxTotal: 3 });
    cache.add('anna', sized('a1', 100));
    cache.add('anna', sized('a2', 100));
    cache.add('anna', sized('a3', 100)); // a1 dropped by max_per_user
    t.advance(25 * HOUR);
    assert.deepEqual(cache.list('anna'), []);
    cache.add('anna', sized('a4', 100)); // a2 and a3 expired
    assert.equal(cache.totalEvents, 1);
    assert.equal(cache.totalBytes, 100);
    cache.add('bob', sized('b1', 100));
    cache.add('bob', sized('b2', 100));
    cache.add('carl', sized('c1', 100)); // four events: anna goes
    assert.deepEqual(cache.list('anna'), []);
    assert.equal(cache.totalEvents, 3);
    assert.equal(cache.totalBytes, 300);
  });

  it('rejects inconsistent bounds', () => {
    assert.throws(() => new UserEventsCache({ maxBytes: 100, maxEventSize: 101 }), /maxEventSize/);
    assert.throws(() => new UserEventsCache({ maxPerUser: 10, maxTotal: 5 }), /maxPerUser/);
    assert.throws(() => new UserEventsCache({ ttlMs: 0 }), /ttlMs/);
  });
});
