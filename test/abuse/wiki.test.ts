// Abuse of the wiki endpoints: POST /wiki/search bodies, X-Service-Groups
// headers (malformed percent-encoding, too many or too long names, non-ASCII),
// GET /wiki/pages queries and GET /wiki/roots, as real users (and with bad
// credentials that belong to no account), and X-Service-User: forged by users
// who are not trusted callers (never answered 200), and sent by a trusted
// portal account with injected line breaks, commas, NULs, LDAP filter syntax,
// raw bytes and very long names.
import { randomBytes } from 'node:crypto';
import { basicAuth } from '../integration/webhooks/api.js';
import { ScratchAccounts, type ScratchAccount } from '../integration/wiki/scratch-accounts.js';
import { groupsHeader } from '../integration/wiki/wiki-service.js';
import { abuseSuite } from './support/campaign.js';
import {
  hostileAuthorization, hostileBody, hostileContentType, hostileHeaderValue, hostileJson, hostileString, nastyString, percentEncoded, type Dice,
} from './support/hostile-input.js';
import type { HeaderValue, RawRequest } from './support/raw-http.js';

function hostileGroups(d: Dice, groups: readonly string[]): HeaderValue {
  return d.oneOf<HeaderValue>([
    () => groupsHeader(Array.from({ length: 1 + d.int(4) }, () => d.pick(groups))),
    () => groupsHeader(Array.from({ length: d.pick([99, 100, 101, 500]) }, (_, i) => `${d.pick(groups)}${i}`)),
    () => groupsHeader([d.pick(groups), 'g'.repeat(d.pick([255, 256, 257, 5_000]))]),
    // (through a Buffer: lone surrogates become U+FFFD, which encodeURIComponent can encode)
    () => groupsHeader([Buffer.from(nastyString(d)).toString(), d.pick(groups)]),
    () => Array.from({ length: 1 + d.int(5) }, () => d.pick(['%', '%2', '%zz', '%C3', '%C3%28', '%ff', '%00', '%2C', ',', ' , ', '', 'Lehrer', 'Sch%C3%BCler', '%E2%82'])).join(d.pick([',', '', ' '])),
    () => Buffer.from(`Lehrer, Schüler, ${nastyString(d)}`, d.pick(['utf8', 'latin1'] as const)),
    () => hostileHeaderValue(d),
  ]);
}

function hostileServiceUser(d: Dice, users: readonly string[]): HeaderValue {
  return d.oneOf<HeaderValue>([
    () => d.pick(users),
    () => encodeURIComponent(`${d.pick(users)}@edu.test`),
    () => `${d.pick(users)}${d.pick(['\r\nx-service-user: fpadmin', '\r\nx-injected: 1', '\r', '\n', '\u0000', ',fpadmin', '%2Cfpadmin', '%00', '%0D%0Ax-a: b', '%5C', '=', '%3D'])}`,
    () => d.pick(['*', '*)(sAMAccountName=*', '\\2a', 'EDU\\anna', '@', 'a@', '@b', 'a@b@c', '%', '%zz', '%C3%28', 'nobody-at-all', 'Administrator', 'krbtgt', 'Guest']),
    () => d.pick(['a', '%41', 'ä', '😀']).repeat(d.pick([256, 257, 1_000, 8_000])),
    () => encodeURIComponent(nastyString(d).replace(/[\ud800-\udfff]/g, '')),
    () => hostileHeaderValue(d),
  ]);
}

function hostileQueryValue(d: Dice, real: readonly string[]): string {
  return d.oneOf([() => d.pick(real), () => percentEncoded(hostileString(d, 3_000)), () => nastyString(d).replace(/[\s#&]/g, '_'), () => d.pick(['', '%', '%zz', '%00', '..', '/', '%2F..%2F', '+'])]);
}

/** The portal's service account, trusted by the service under test; created in prepare, deleted in cleanup. */
const PORTAL = `ssoab${randomBytes(3).toString('hex')}-portal`;
let accounts: ScratchAccounts | undefined;
/** Authorization values of real accounts that are not trusted callers: with X-Service-User never a 200. */
const untrusted = new Set<string>();

abuseSuite({
  name: 'wiki endpoints',
  config: { wiki: { trusted_callers: [PORTAL] } },
  async prepare(_service, env) {
    accounts = new ScratchAccounts(env);
    const portal: ScratchAccount = await accounts.createUser(PORTAL);
    const names = ['anna', 'ben', 'carla', 'dora'];
    const users = names.map((name) => basicAuth(name, env.users[name]!.password));
    users.forEach((user) => untrusted.add(user));
    const portalAuthorization = basicAuth(portal.name, portal.password);
    const groups = Object.keys(env.groups);
    const shares = env.smb.shares.map((s) => s.name);
    return (d: Dice): RawRequest => {
      const validSearch = () => ({ q: d.pick(['wiki', 'Schule', 'a*', '"x']), share: d.pick(shares), size: 5 });
      const [method, target, body] = d.oneOf<[string, string, Buffer | string]>([
        () => ['POST', '/wiki/search', hostileBody(d, validSearch)],
        () => ['POST', '/wiki/search', JSON.stringify({ ...validSearch(), [d.pick(['q', 'share', 'folder', 'size', 'from'])]: hostileJson(d) })],
        () => ['POST', '/wiki/search', JSON.stringify({ q: hostileString(d, 5_000), ...(d.chance(0.5) ? { share: d.pick(shares), folder: nastyString(d) } : {}) })],
        () => ['GET', `/wiki/pages?share=${hostileQueryValue(d, shares)}${d.chance(0.7) ? `&folder=${hostileQueryValue(d, ['', 'Projekte', 'a/b'])}` : ''}${d.chance(0.1) ? '&share=x&folder=y' : ''}`, ''],
        () => ['GET', d.pick(['/wiki/roots', '/wiki/roots', '/wiki/roots?x=%zz', '/wiki//roots', '/wiki/roots/']), ''],
        () => [d.pick(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']), d.pick(['/wiki/search', '/wiki/pages', '/wiki/', '/wiki']), ''],
      ]);
      const headers: Array<[string, HeaderValue]> = [];
      const authorization = d.chance(0.3) ? portalAuthorization : d.chance(0.7) ? d.pick(users) : hostileAuthorization(d);
      if (authorization !== undefined) headers.push(['authorization', authorization]);
      if (d.chance(0.5)) headers.push(['x-service-user', hostileServiceUser(d, [...names, 'fpadmin', PORTAL])]);
      if (d.chance(0.03)) headers.push(['x-service-user', d.pick(names)]);
      if (d.chance(0.85)) headers.push(['x-service-groups', hostileGroups(d, groups)]);
      if (d.chance(0.05)) headers.push(['x-service-groups', hostileGroups(d, groups)]);
      const contentType = method !== 'POST' || d.chance(0.7) ? 'application/json' : hostileContentType(d);
      if (contentType !== undefined) headers.push(['content-type', contentType]);
      return { method, target, headers, body };
    };
  },
  check(req, answer) {
    const authorization = req.headers.find(([name]) => name === 'authorization')?.[1];
    const forged = req.headers.some(([name]) => name === 'x-service-user') && typeof authorization === 'string' && untrusted.has(authorization);
    return forged && answer.status === 200 ? 'X-Service-User from an account that is not a trusted caller was answered 200' : undefined;
  },
  async cleanup() {
    await accounts?.removeAll();
  },
});
