import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UserEventsCache } from '../../../src/webhooks/user-events.js';

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

  it('rejects inconsistent bounds', () => {
    assert.throws(() => new UserEventsCache({ maxPerUser: 10, maxTotal: 5 }), /maxPerUser/);
    assert.throws(() => new UserEventsCache({ ttlMs: 0 }), /ttlMs/);
  });
});
