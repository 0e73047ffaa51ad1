// POST /edu-api/webhook against the real service (one http-front): every
// check, their order when several fail, the dedupe window, bad bodies, the
// processing per User-Agent and the cached user events.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { AdminApi, assertError, basicAuth, logLines, nowSeconds, postWebhook, simultaneousPosts, statusCounts, type ClientEntry, type WebhookPost } from './api.js';

const MAX_BODY = 2048;

describe('webhook intake', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let admin: AdminApi;
  let eventhandler: ClientEntry;
  let platform: ClientEntry;
  let other: ClientEntry;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({
      http: { max_body: MAX_BODY },
      webhooks: { supported_user_agents: ['service-eventhandler', 'platform-api', 'grades-sync'], user_events: { max_event_size: 1024 } },
    });
    admin = AdminApi.asAdmin(service.url, env);
    eventhandler = await admin.register('service-eventhandler');
    platform = await admin.register('platform-api');
    other = await admin.register('grades-sync');
  });
  after(async () => {
    const output = service.output();
    assert.equal(await service.stop(), 0);
    for (const client of [eventhandler, platform, other]) {
      assert.ok(!output.includes(client.api_key), 'no API key ever reaches the log');
    }
  });

  /** A post as the service-eventhandler client, valid unless `post` says otherwise. */
  const send = (post: WebhookPost = {}) =>
    postWebhook(service.url, { key: eventhandler.api_key, userAgent: 'service-eventhandler/1.2.3', body: '{"username":"nobody"}', ...post });

  it('accepts a valid event with 200 {"status":"ok"}', async () => {
    const res = await send();
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  describe('check 1: the three x-webhook headers', () => {
    for (const [name, field] of [['x-webhook-key', 'key'], ['x-webhook-timestamp', 'timestamp'], ['x-webhook-event-id', 'eventId']] as const) {
      it(`400 without ${name}, and with it empty`, async () => {
        for (const value of [undefined, '']) {
          const res = await send({ [field]: value });
          assertError(res, 400, 'missing_header');
          assert.match(String(res.body['message']), new RegExp(name));
        }
      });
    }
  });

  describe('check 2: key and User-Agent', () => {
    it('401 for an unknown key; the message does not echo it', async () => {
      const res = await send({ key: 'not-a-registered-key-0123456789' });
      assertError(res, 401, 'invalid_key');
      assert.doesNotMatch(JSON.stringify(res.body), /not-a-registered-key/);
    });

    it('accepts the User-Agent exactly as registered and followed by /<version>', async () => {
      assert.equal((await send({ userAgent: 'service-eventhandler' })).status, 200);
      assert.equal((await send({ userAgent: 'service-eventhandler/1.2.3' })).status, 200);
    });

    it('401 for a different User-Agent, including another registered one and a longer name', async () => {
      for (const userAgent of ['platform-api/1.0', 'service-eventhandler-evil/1.0', 'Service-Eventhandler/1.0', 'curl/8.0']) {
        assertError(await send({ userAgent }), 401, 'user_agent_mismatch');
      }
    });
  });

  describe('check 3: timestamp in whole seconds, at most 300 s old, not in the future', () => {
    /** Sends early in a second, so that the service's clock shows the same second as ours. */
    async function sendAtAge(ageSeconds: number) {
      while (Date.now() % 1000 > 200) await new Promise((r) => setTimeout(r, 10));
      return send({ timestamp: nowSeconds() - ageSeconds });
    }

    it('accepts now and exactly 300 s ago', async () => {
      assert.equal((await sendAtAge(0)).status, 200);
      assert.equal((await sendAtAge(300)).status, 200);
    });

    it('401 at 301 s ago and 5 s in the future', async () => {
      assertError(await sendAtAge(301), 401, 'timestamp_expired');
      assertError(await sendAtAge(-5), 401, 'timestamp_in_future');
    });

    it('401 for milliseconds, naming the mistake', async () => {
      const res = await send({ timestamp: Date.now() });
      assertError(res, 401, 'timestamp_in_future');
      assert.match(String(res.body['message']), /milliseconds/);
    });

    it('401 for a timestamp that is not an integer number', async () => {
      for (const timestamp of ['soon', '1.7e9', `${nowSeconds()}.5`, '-5', `0x${nowSeconds().toString(16)}`]) {
        assertError(await send({ timestamp }), 401, 'invalid_timestamp');
      }
    });
  });

  describe('check 4 and the order of checks', () => {
    it('409 for an event id accepted before, also from another client', async () => {
      const eventId = randomUUID();
      assert.equal((await send({ eventId })).status, 200);
      assertError(await send({ eventId }), 409, 'duplicate_event');
      assertError(await postWebhook(service.url, { key: platform.api_key, userAgent: 'platform-api', eventId }), 409, 'duplicate_event');
    });

    it('missing header and unknown key: 400', async () => {
      assertError(await send({ key: 'unknown-key', eventId: undefined }), 400, 'missing_header');
    });

    it('unknown key and stale timestamp: 401 for the key', async () => {
      assertError(await send({ key: 'unknown-key', timestamp: nowSeconds() - 3600 }), 401, 'invalid_key');
    });

    it('valid key, stale timestamp and duplicate id: 401, not 409', async () => {
      const eventId = randomUUID();
      assert.equal((await send({ eventId })).status, 200);
      assertError(await send({ eventId, timestamp: nowSeconds() - 3600 }), 401, 'timestamp_expired');
    });

    it('wrong User-Agent and stale timestamp: 401 for the User-Agent', async () => {
      assertError(await send({ userAgent: 'platform-api', timestamp: nowSeconds() - 3600 }), 401, 'user_agent_mismatch');
    });

    it('duplicate id and bad body: 409 (the id comes before the body)', async () => {
      const eventId = randomUUID();
      assert.equal((await send({ eventId })).status, 200);
      assertError(await send({ eventId, contentType: 'text/plain' }), 409, 'duplicate_event');
      assertError(await send({ eventId, body: '[1]' }), 409, 'duplicate_event');
    });
  });

  describe('bad bodies', () => {
    it('415 for another content type, 400 for invalid JSON and for non-objects', async () => {
      assertError(await send({ contentType: 'text/plain' }), 415, 'unsupported_media_type');
      assertError(await send({ contentType: 'application/x-www-form-urlencoded', body: 'a=1' }), 415, 'unsupported_media_type');
      assertError(await send({ body: '{"username":' }), 400, 'invalid_json');
      assertError(await send({ body: '' }), 400, 'invalid_json');
      for (const body of ['[]', '[{"username":"anna"}]', 'null', '"text"', '42']) {
        assertError(await send({ body }), 400, 'body_not_object');
      }
    });

    /**
     * A post whose body `write` sends through node:http; resolves with the status as soon as the
     * answer arrives. The service may close the connection while the body is still being sent
     * (that is the point of an early 413), so a write error after the answer does not count.
     */
    function postStreaming(headers: Record<string, string>, write: (req: ClientRequest) => void): Promise<number> {
      return new Promise((resolve, reject) => {
        let answered = false;
        const req = request(`${service.url}/edu-api/webhook`, {
          method: 'POST',
          headers: {
            'x-webhook-key': eventhandler.api_key, 'x-webhook-timestamp': String(nowSeconds()), 'x-webhook-event-id': randomUUID(),
            'user-agent': 'service-eventhandler', 'content-type': 'application/json', ...headers,
          },
        }, (res) => { answered = true; res.resume(); resolve(res.statusCode ?? 0); });
        req.on('error', (err) => { if (!answered) reject(err); });
        write(req);
      });
    }

    it(`413 for a body over http.max_body (${MAX_BODY} bytes), also when streamed without a length`, async () => {
      const big = JSON.stringify({ username: 'anna', pad: 'x'.repeat(MAX_BODY) });
      assertError(await send({ body: big }), 413, 'body_too_large');
      const chunked = await postStreaming({ 'transfer-encoding': 'chunked' }, (req) => {
        for (let i = 0; i < 4; i++) req.write('x'.repeat(MAX_BODY / 2));
        req.end();
      });
      assert.equal(chunked, 413);
    });

    it('413 at once for a declared length over the limit, without waiting for the body', async () => {
      // 50 MiB announced, a few bytes sent, never ended: only an answer that does not wait for the body arrives.
      const status = await postStreaming({ 'content-length': String(50 * 1024 * 1024) }, (req) => req.write('{"username":"anna"'));
      assert.equal(status, 413);
    });

    it('a rejected body does not use up its event id', async () => {
      const eventId = randomUUID();
      assertError(await send({ eventId, body: '[]' }), 400, 'body_not_object');
      assertError(await send({ eventId, body: 'x'.repeat(MAX_BODY + 1) }), 413, 'body_too_large');
      assert.equal((await send({ eventId })).status, 200);
    });
  });

  it('remembers the last 100 accepted ids: the 101st pushes the oldest out', async () => {
    const prefix = randomUUID();
    const id = (n: number) => `${prefix}-${n}`;
    for (let n = 1; n <= 100; n++) assert.equal((await send({ eventId: id(n) })).status, 200);
    assertError(await send({ eventId: id(1) }), 409, 'duplicate_event');
    assert.equal((await send({ eventId: id(101) })).status, 200);
    assertError(await send({ eventId: id(2) }), 409, 'duplicate_event');
    assert.equal((await send({ eventId: id(1) })).status, 200, 'the oldest id was pushed out by the 101st');
  });

  it('200 concurrent posts of one event: exactly one 200 and 199 × 409', async () => {
    const post = { key: eventhandler.api_key, userAgent: 'service-eventhandler', eventId: randomUUID(), body: '{"username":"ben"}' };
    assert.deepEqual(statusCounts(await simultaneousPosts(service.url, 200, post)), { 200: 1, 409: 199 });
  });

  it('a deleted client\'s key gets 401 at once', async () => {
    const doomed = await admin.register('platform-api');
    assert.equal((await postWebhook(service.url, { key: doomed.api_key, userAgent: 'platform-api' })).status, 200);
    assert.equal((await admin.deleteOne(doomed.id)).status, 200);
    assertError(await postWebhook(service.url, { key: doomed.api_key, userAgent: 'platform-api' }), 401, 'invalid_key');
  });

  describe('processing by User-Agent and the user events', () => {
    const readAs = (user: string, password: string, username: string) =>
      fetch(`${service.url}/edu-api/users/${encodeURIComponent(username)}/events`, { headers: { authorization: basicAuth(user, password) } });

    async function eventsOf(username: string): Promise<{ event_id: string; client_id: string; received_at: string; payload: Record<string, unknown> }[]> {
      const res = await readAs(env.admin.user, env.admin.password, username);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { username: string; events: [] };
      assert.equal(body.username, username);
      return body.events;
    }

    it('caches service-eventhandler events with a username, newest first, and discards those without', async () => {
      const user = `carla-${randomUUID().slice(0, 8)}`;
      const first = randomUUID();
      const second = randomUUID();
      assert.equal((await send({ eventId: first, body: JSON.stringify({ username: user, seq: 1 }) })).status, 200);
      assert.equal((await send({ eventId: second, body: JSON.stringify({ username: user.toUpperCase(), seq: 2 }) })).status, 200);
      const withoutUsername = randomUUID();
      const numericUsername = randomUUID();
      assert.equal((await send({ eventId: withoutUsername, body: JSON.stringify({ user, seq: 3 }) })).status, 200, 'accepted, then discarded');
      assert.equal((await send({ eventId: numericUsername, body: JSON.stringify({ username: 42, seq: 4 }) })).status, 200);
      const events = await eventsOf(user);
      assert.deepEqual(events.map((e) => [e.event_id, e.payload['seq']]), [[second, 2], [first, 1]]);
      assert.equal(events[0]!.client_id, eventhandler.id);
      assert.ok(Date.parse(events[0]!.received_at) >= Date.parse(events[1]!.received_at));
      for (const eventId of [withoutUsername, numericUsername]) assert.equal((await logLines(service, eventId, 'webhook event discarded')).length, 1);
    });

    it('413 event_too_large for a user event over max_event_size; its id stays usable and nothing is cached', async () => {
      const user = `erik-${randomUUID().slice(0, 8)}`;
      const eventId = randomUUID();
      const big = JSON.stringify({ username: user, text: 'x'.repeat(1100) }); // under http.max_body, over max_event_size
      assertError(await send({ eventId, body: big }), 413, 'event_too_large', /webhooks\.user_events\.max_event_size/);
      assert.deepEqual(await eventsOf(user), []);
      assert.equal((await send({ eventId, body: JSON.stringify({ username: user }) })).status, 200);
      assert.equal((await eventsOf(user)).length, 1);
    });

    it('logs platform-api events without caching them; other services get 200 and one warning', async () => {
      const user = `dora-${randomUUID().slice(0, 8)}`;
      const platformEvent = randomUUID();
      const res = await postWebhook(service.url, { key: platform.api_key, userAgent: 'platform-api/3', eventId: platformEvent, body: JSON.stringify({ username: user }) });
      assert.equal(res.status, 200);
      const otherEvent = randomUUID();
      assert.equal((await postWebhook(service.url, { key: other.api_key, userAgent: 'grades-sync/1', eventId: otherEvent, body: JSON.stringify({ username: user }) })).status, 200);
      assert.deepEqual(await eventsOf(user), []);
      assert.equal((await logLines(service, platformEvent, 'platform-api webhook event received')).length, 1);
      const warnings = (await logLines(service, otherEvent)).map((l) => JSON.parse(l) as { level: number });
      assert.deepEqual(warnings.map((w) => w.level), [40], 'exactly one line for the event, a warning');
    });

    it('the indexer service account may read events; an ordinary user only their own; no credentials get a Basic challenge', async () => {
      assert.equal((await readAs(env.indexer.user, env.indexer.password, 'anna')).status, 200);
      const anna = env.users['anna']!;
      const eventId = randomUUID();
      assert.equal((await send({ eventId, body: JSON.stringify({ username: 'anna' }) })).status, 200);
      for (const login of ['anna', 'ANNA', `${env.smb.domain}\\anna`]) {
        for (const own of ['anna', 'Anna', `${env.smb.domain.toLowerCase()}\\anna`, `anna@${env.smb.realm.toLowerCase()}`]) {
          const res = await readAs(login, anna.password, own);
          assert.equal(res.status, 200, `${login} reads ${own}`);
          if (!/[\\@]/.test(own)) { // the cache keys events by the name in their payload
            assert.ok(((await res.json()) as { events: { event_id: string }[] }).events.some((e) => e.event_id === eventId));
          }
        }
      }
      for (const other of ['bob', 'annabel', `OTHER\\anna`, 'anna@other.example']) {
        const forbidden = await readAs('anna', anna.password, other);
        assertError({ status: forbidden.status, headers: forbidden.headers, body: await forbidden.json() }, 403, 'forbidden', /only their own events/);
      }
      const wrong = await readAs(env.indexer.user, 'wrong-password', 'anna');
      assert.equal(wrong.status, 401);
      const anonymous = await fetch(`${service.url}/edu-api/users/anna/events`);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="edu-fileproxy"');
    });
  });
});
