import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { Logger } from '../../../src/common/logger.js';
import { HttpError } from '../../../src/http/http-error.js';
import type { WebhookClient } from '../../../src/webhooks/client.js';
import { type AcceptedWebhookEvent, dispatchWebhookEvent } from '../../../src/webhooks/dispatch.js';
import { UserEventsCache } from '../../../src/webhooks/user-events.js';

// pino's logger must satisfy the interface the dispatcher takes (a compile-time check)
const pinoLogger: Logger = pino({ enabled: false });

function recordingLogger() {
  const lines: { level: 'info' | 'warn'; fields: object; message: string }[] = [];
  const logger: Logger = {
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
  };
  return { logger, lines };
}

function accepted(userAgent: string, payload: Record<string, unknown>): AcceptedWebhookEvent {
  const client: WebhookClient = { id: 'c1', user_agent: userAgent, api_key: 'the-secret-key', created_at: '2025-01-01T00:00:00.000Z' };
  return { client, eventId: 'evt-1', payload, payloadJson: JSON.stringify(payload) };
}

describe('dispatchWebhookEvent', () => {
  it('caches service-eventhandler events with a username for that user', async () => {
    const userEvents = new UserEventsCache();
    const outcome = await dispatchWebhookEvent(accepted('service-eventhandler', { username: 'anna', kind: 'x' }), {
      userEvents,
      logger: pinoLogger,
    });
    assert.equal(outcome, 'cached');
    assert.deepEqual(userEvents.list('anna').map((e) => [e.eventId, e.clientId, e.payloadJson]), [
      ['evt-1', 'c1', '{"username":"anna","kind":"x"}'],
    ]);
  });

  it('refuses a service-eventhandler event over max_event_size with 413 event_too_large and caches nothing', async () => {
    const userEvents = new UserEventsCache();
    const payload = { username: 'anna', text: 'x'.repeat(103) }; // 132 bytes as sent
    await assert.rejects(
      dispatchWebhookEvent(accepted('service-eventhandler', payload), { userEvents, logger: pinoLogger, maxUserEventSize: 131 }),
      (err: unknown) => err instanceof HttpError && err.status === 413 && err.code === 'event_too_large' && /132 bytes/.test(err.message),
    );
    assert.deepEqual(userEvents.list('anna'), []);
    assert.equal(await dispatchWebhookEvent(accepted('service-eventhandler', payload), { userEvents, logger: pinoLogger, maxUserEventSize: 132 }), 'cached');
  });

  for (const payload of [{}, { username: '' }, { username: '  ' }, { username: 42 }, { username: null }]) {
    it(`discards service-eventhandler events with ${JSON.stringify(payload)} and logs why`, async () => {
      const userEvents = new UserEventsCache();
      const { logger, lines } = recordingLogger();
      assert.equal(await dispatchWebhookEvent(accepted('service-eventhandler', payload), { userEvents, logger }), 'discarded');
      assert.equal(userEvents.totalEvents, 0);
      assert.equal(lines.length, 1);
      assert.ok('reason' in lines[0]!.fields);
    });
  }

  it('logs platform-api events and does nothing else with them (the spec keeps their content evaluation inactive)', async () => {
    const { logger, lines } = recordingLogger();
    const userEvents = new UserEventsCache();
    const event = accepted('platform-api', { username: 'anna' });
    assert.equal(await dispatchWebhookEvent(event, { userEvents, logger }), 'logged');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'info');
    assert.deepEqual(userEvents.list('anna'), []);
  });

  it('ignores other registered services with exactly one warning', async () => {
    const { logger, lines } = recordingLogger();
    const outcome = await dispatchWebhookEvent(accepted('grades-sync', { username: 'anna' }), {
      userEvents: new UserEventsCache(),
      logger,
    });
    assert.equal(outcome, 'ignored');
    assert.deepEqual(lines.map((l) => l.level), ['warn']);
  });

  it('never logs the API key', async () => {
    const { logger, lines } = recordingLogger();
    for (const ua of ['service-eventhandler', 'platform-api', 'other']) {
      await dispatchWebhookEvent(accepted(ua, {}), { userEvents: new UserEventsCache(), logger });
    }
    assert.ok(!JSON.stringify(lines).includes('the-secret-key'));
  });
});
