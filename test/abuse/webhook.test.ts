// Abuse of the webhook intake, POST /edu-api/webhook: missing, duplicated and
// oversized headers, bad encodings, bad timestamps, unknown keys, repeated
// event ids, wrong content types and hostile bodies, on top of valid posts of
// a registered client (slow senders: slowloris.test.ts).
import { AdminApi, nowSeconds } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import { hostileBody, hostileContentType, hostileHeaderValue, nastyString, type Dice } from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';

const TARGETS = [...Array<string>(12).fill('/edu-api/webhook'), '/edu-api/webhook/', '/edu-api/webhook?a=%zz', '/edu-api//webhook', '/EDU-API/webhook', '/edu-api/webhook%00'];

function hostileTimestamp(d: Dice): HeaderValue {
  const now = nowSeconds();
  return d.oneOf<HeaderValue>([
    () => String(now - d.pick([301, 3_600, 86_400 * 365, now])),
    () => String(now + d.pick([301, 3_600, 86_400 * 365])),
    () => d.pick([`${now}.5`, `${now * 1000}`, `-${now}`, `+${now}`, ` ${now}`, `0x${now.toString(16)}`, `${now}e0`, '1e309', '9'.repeat(400), 'NaN', '', '0', '-0']),
    () => new Date().toISOString(),
    () => hostileHeaderValue(d),
  ]);
}

abuseSuite({
  name: 'webhook intake',
  // Accepted events are cached for their users; a small cache keeps the memory check about leaks.
  config: { webhooks: { user_events: { max_total: 200, max_per_user: 5 } } },
  async prepare(service, env) {
    const admin = AdminApi.asAdmin(service.url, env);
    const eventhandler = await admin.register('service-eventhandler');
    const platform = await admin.register('platform-api');
    return (d: Dice, i: number): RawRequest => {
      const client = d.pick([eventhandler, platform]);
      const header = {
        key: (): HeaderValue | undefined => d.oneOf<HeaderValue | undefined>([
          () => client.api_key, () => client.api_key, () => client.api_key, () => undefined,
          () => d.pick([eventhandler, platform]).api_key, () => `${client.api_key}x`, () => client.api_key.slice(1), () => client.api_key.toUpperCase(), () => hostileHeaderValue(d),
        ]),
        userAgent: (): HeaderValue | undefined => d.oneOf<HeaderValue | undefined>([
          () => `${client.user_agent}/1.0`, () => `${client.user_agent}/1.0`, () => client.user_agent, () => undefined,
          () => d.pick(['platform-api/1.0', 'service-eventhandler/1.0', 'Service-Eventhandler/1', 'curl/8.0', '/', `${client.user_agent}x/1`]), () => hostileHeaderValue(d),
        ]),
        timestamp: (): HeaderValue | undefined => (d.chance(0.6) ? String(nowSeconds()) : d.chance(0.1) ? undefined : hostileTimestamp(d)),
        // Reused ids (the same few for all requests) are duplicates once accepted.
        eventId: (): HeaderValue | undefined => d.oneOf<HeaderValue | undefined>([
          () => `abuse-${d.int(2 ** 30)}-${i}`, () => `abuse-${d.int(2 ** 30)}-${i}`, () => `repeat-${d.int(5)}`, () => undefined, () => hostileHeaderValue(d),
        ]),
      };
      const headers: Array<[string, HeaderValue]> = [];
      const add = (name: string, value: HeaderValue | undefined) => {
        if (value === undefined) return;
        headers.push([d.chance(0.1) ? name.toUpperCase() : name, value]);
        if (d.chance(0.04)) headers.push([name, d.chance(0.5) ? value : nastyString(d)]);
      };
      add('x-webhook-key', header.key());
      add('x-webhook-timestamp', header.timestamp());
      add('x-webhook-event-id', header.eventId());
      add('user-agent', header.userAgent());
      add('content-type', d.chance(0.6) ? 'application/json' : hostileContentType(d));
      if (d.chance(0.05)) headers.push([d.pick(['x-webhook-extra', 'x'.repeat(300), 'transfer-encoding', 'expect', 'content-encoding']), d.pick(['gzip', '100-continue', 'identity', 'x'])]);
      if (d.chance(0.03)) headers.push(['x-padding', 'p'.repeat(d.pick([8_000, 17_000, 70_000]))]);
      const validBody = () => ({ username: d.pick(['anna', 'ben', nastyString(d)]), type: 'abuse', n: i });
      return {
        method: d.chance(0.95) ? 'POST' : d.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'post', 'BREW']),
        target: d.pick(TARGETS),
        headers,
        body: d.chance(0.3) ? JSON.stringify(validBody()) : hostileBody(d, validBody),
      };
    };
  },
});
