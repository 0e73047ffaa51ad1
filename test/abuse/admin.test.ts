// Abuse of the admin APIs: webhook clients, wiki visibility, supported user
// agents and a user's cached events, with bad credentials (never a wrong
// password of a real account: lockout), bad JSON, wrong types, bad ids and
// huge inputs, on top of the global admin's valid credentials.
import { basicAuth } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import { hostileAuthorization, hostileBody, hostileContentType, hostileString, nastyString, percentEncoded, type Dice } from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';

/** A path segment: an id or name that is wrong in form, encoding or size. */
function hostileSegment(d: Dice, real: readonly string[]): string {
  return d.oneOf([
    () => d.pick(real),
    () => percentEncoded(hostileString(d, 5_000)),
    () => nastyString(d).replace(/[^\x21-\x7e]/g, (c) => percentEncoded(c)),
    () => d.pick(['%', '%zz', '%ff%fe', '%00', '..', '%2e%2e', '%2F', 'a%2Fb', '%20', '', '0', '-1', '00000000-0000-0000-0000-000000000000']),
  ]).replace(/[\s#?]/g, '_');
}

abuseSuite({
  name: 'admin APIs',
  async prepare(_service, env) {
    const admin = basicAuth(env.admin.user, env.admin.password);
    const reader = basicAuth(env.indexer.user, env.indexer.password);
    const shares = env.smb.shares.map((s) => s.name);
    const users = Object.keys(env.users);
    return (d: Dice): RawRequest => {
      const clients = '/edu-api/admin/webhook-clients';
      const visibility = '/edu-api/admin/wiki-visibility';
      const [method, target, valid] = d.oneOf<[string, string, () => Record<string, unknown>]>([
        () => ['POST', clients, () => ({ user_agent: d.pick(['platform-api', 'service-eventhandler']) })],
        () => ['GET', `${clients}?user_agent=${percentEncoded(hostileString(d, 3_000))}`, () => ({})],
        () => ['GET', `${clients}/${hostileSegment(d, ['x'])}/key`, () => ({})],
        () => ['DELETE', clients, () => ({ ids: Array.from({ length: d.pick([1, 3, 1_001]) }, () => nastyString(d)) })],
        () => [d.pick(['DELETE', 'PUT', 'PATCH', 'POST']), `${clients}/${hostileSegment(d, ['x'])}${d.chance(0.3) ? '/key' : ''}`, () => ({ api_key: 'k' })],
        () => ['GET', visibility, () => ({})],
        () => ['PUT', `${visibility}/${hostileSegment(d, shares)}`, () => ({ active: d.chance(0.9), access_groups: d.chance(0.5) ? ['Lehrer'] : [nastyString(d)] })],
        () => [d.pick(['GET', 'POST', 'DELETE']), '/edu-api/admin/webhook-user-agents', () => ({})],
        () => ['GET', `/edu-api/users/${hostileSegment(d, users)}/events`, () => ({})],
        () => [d.pick(['GET', 'OPTIONS', 'HEAD', 'TRACE', 'CONNECT', 'get']), d.pick([clients, visibility, `${clients}/`, `${visibility}//`, '/edu-api/admin/', '/edu-api/users//events']), () => ({})],
      ]);
      const authorization: HeaderValue | undefined = d.chance(0.55)
        ? (target.startsWith('/edu-api/users/') && d.chance(0.5) ? reader : admin)
        : hostileAuthorization(d);
      const headers: Array<[string, HeaderValue]> = [];
      if (authorization !== undefined) headers.push(['authorization', authorization]);
      if (d.chance(0.05) && authorization !== undefined) headers.push(['authorization', d.chance(0.5) ? admin : 'Basic x']);
      const contentType = d.chance(0.6) ? 'application/json' : hostileContentType(d);
      if (contentType !== undefined) headers.push(['content-type', contentType]);
      return { method, target, headers, body: method === 'GET' && d.chance(0.8) ? '' : hostileBody(d, valid) };
    };
  },
});
