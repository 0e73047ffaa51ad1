import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UserEventsCache, UserEventTooLargeError, userEventSize, userEventsJson } from '../../../src/webhooks/user-events.js';

const HOUR = 60 * 60 * 1000;

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const event = (eventId: string) => ({ eventId, clientId: 'c1', payloadJson: JSON.stringify({ username: 'anna', eventId }) });

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

  /** An event of exactly `bytes` bytes as sent. */
  const sized = (eventId: string, bytes: number) => {
    const empty = '{"username":"x","pad":""}';
    const payloadJson = `{"username":"x","pad":"${'p'.repeat(bytes - userEventSize(empty))}"}`;
    return { eventId, clientId: 'c1', payloadJson };
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

describe('userEventsJson', () => {
  it('is the events answer as JSON, each payload spliced in as the text the service sent', () => {
    const sent = '{ "username": "anna",\n  "text": "Zeugnis \\u2028 \\"fertig\\"", "n": [1, 2.50] }';
    const json = userEventsJson('anna "m"', [
      { eventId: 'e2', clientId: 'c1', receivedAt: Date.UTC(2026, 0, 2, 3, 4, 5), payloadJson: sent },
      { eventId: 'e"1', clientId: 'c2', receivedAt: 0, payloadJson: '{}' },
    ]);
    assert.ok(json.includes(sent), 'the payload text is kept as sent');
    assert.deepEqual(JSON.parse(json), {
      username: 'anna "m"',
      events: [
        { event_id: 'e2', client_id: 'c1', received_at: '2026-01-02T03:04:05.000Z', payload: JSON.parse(sent) },
        { event_id: 'e"1', client_id: 'c2', received_at: '1970-01-01T00:00:00.000Z', payload: {} },
      ],
    });
    assert.deepEqual(JSON.parse(userEventsJson('bob', [])), { username: 'bob', events: [] });
  });
});
