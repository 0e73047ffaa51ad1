// Slow senders (slowloris) on the default transport (node:http, one
// http-front): many clients trickle their headers or a webhook body one byte
// at a time. Ordinary requests are still served promptly meanwhile, and each
// slow client is cut off with a JSON 408 at about http.header_timeout or
// http.body_timeout of the config.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AdminApi, nowSeconds, postWebhook, type ClientEntry } from '../integration/webhooks/api.js';
import { assertNothingCrashed } from '../support/health.js';
import { startService, type RunningService } from '../support/service.js';
import { trickle, type TrickleResult } from '../support/trickle.js';
import { readTestbedEnv } from '../testbed/env.js';
import { answerProblem } from './support/campaign.js';
import { parseAnswer } from './support/raw-http.js';

const HEADER_TIMEOUT_MS = 3_000;
const BODY_TIMEOUT_MS = 4_000;
const SLOW_CLIENTS_PER_KIND = 150;
const TRICKLE_EVERY_MS = 250;
/** "Promptly": well below either timeout, so that a request queued behind the slow ones would show. */
const PROMPT_MS = 1_000;
/** How late after its timeout a slow client may still be cut off (Node checks header timeouts periodically; a busy 2-core host). */
const CUT_OFF_SLACK_MS = 2_500;

describe('abuse: slow senders', () => {
  let service: RunningService;
  let client: ClientEntry;
  let port: number;

  before(async () => {
    service = await startService({ http: { header_timeout: `${HEADER_TIMEOUT_MS}ms`, body_timeout: `${BODY_TIMEOUT_MS}ms` } });
    port = Number(new URL(service.url).port);
    client = await AdminApi.asAdmin(service.url, await readTestbedEnv()).register('platform-api');
    await ordinaryRequests();
  });
  after(async () => {
    await service.stop();
  });

  /** A health check and a webhook post, as anyone would send them; resolves with the time both took. */
  const ordinaryRequests = async (): Promise<number> => {
    const started = Date.now();
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    assert.equal((await postWebhook(service.url, { key: client.api_key, userAgent: 'platform-api/1.0' })).status, 200);
    return Date.now() - started;
  };

  const webhookHead = (length: number) => [
    'POST /edu-api/webhook HTTP/1.1', `host: 127.0.0.1:${port}`, `x-webhook-key: ${client.api_key}`, `x-webhook-timestamp: ${nowSeconds()}`,
    `x-webhook-event-id: ${randomUUID()}`, 'user-agent: platform-api/1.0', 'content-type: application/json', `content-length: ${length}`, '', '',
  ].join('\r\n');

  it(`serves ordinary requests promptly while ${2 * SLOW_CLIENTS_PER_KIND} slow clients trickle, and cuts each slow one off at its timeout`, async () => {
    const slowHeaders = Array.from({ length: SLOW_CLIENTS_PER_KIND }, () => trickle(port, 'GET /healthz HTTP/1.1\r\n', 'x-slow: a\r\n'.repeat(100), TRICKLE_EVERY_MS));
    const slowBodies = Array.from({ length: SLOW_CLIENTS_PER_KIND }, () => trickle(port, webhookHead(1_000), `{"a":"${'x'.repeat(992)}"}`, TRICKLE_EVERY_MS));
    // Ordinary requests while the slow ones hold their connections, until the first of them are cut off.
    const slowest: number[] = [];
    const deadline = Date.now() + HEADER_TIMEOUT_MS - 500;
    await new Promise((r) => setTimeout(r, 300));
    while (Date.now() < deadline) slowest.push(await ordinaryRequests());
    assert.ok(slowest.length >= 3, `only ${slowest.length} rounds of ordinary requests`);
    assert.ok(Math.max(...slowest) < PROMPT_MS, `ordinary requests took up to ${Math.max(...slowest)} ms: ${slowest.join(', ')}`);

    const cutOff = (results: TrickleResult[], timeoutMs: number, code: string) => {
      for (const result of results) {
        const parsed = parseAnswer(Buffer.from(result.text, 'latin1'), 'GET', true);
        assert.ok(parsed, `no answer before the close: ${JSON.stringify(result.text.slice(0, 200))}`);
        assert.equal(parsed.answer.status, 408, `${result.closedAfterMs} ms: ${JSON.stringify(result.text.slice(0, 600))}`);
        assert.equal(answerProblem('GET', parsed.answer), undefined);
        assert.equal((JSON.parse(parsed.answer.body.toString()) as { error: string }).error, code);
        assert.ok(result.closedAfterMs >= timeoutMs - 100 && result.closedAfterMs <= timeoutMs + CUT_OFF_SLACK_MS,
          `cut off after ${result.closedAfterMs} ms, timeout ${timeoutMs} ms`);
      }
    };
    cutOff(await Promise.all(slowHeaders), HEADER_TIMEOUT_MS, 'header_timeout');
    cutOff(await Promise.all(slowBodies), BODY_TIMEOUT_MS, 'body_timeout');
    await assertNothingCrashed(service);
  });
});
