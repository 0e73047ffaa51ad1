// Password spraying (issue 14, hole 5): many accounts (real and made up) times wrong passwords, from one address,
// on every Basic-authenticated surface (wiki, WebDAV, admin APIs, user events), mixed with the real users'
// verified credentials. The throttle answers 429; nothing may crash or answer 5xx, and verified credentials are
// never throttled.
import { basicAuth } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import { nastyString, type Dice } from './support/hostile-input.js';
import type { RawRequest } from './support/raw-http.js';

const PASSWORDS = ['Winter2026!', 'Sommer2026!', 'Passwort1', '123456', 'Schule2026', 'Welcome1!'];

abuseSuite({
  name: 'password spraying',
  async prepare(_service, env) {
    const real = Object.keys(env.users);
    const verified = real.map((name) => basicAuth(name, env.users[name]!.password));
    return (d: Dice): RawRequest => {
      const target = d.pick([
        '/wiki/roots', '/wiki/pages?share=schule', '/dav/schule/Aushang.txt', '/edu-api/admin/webhook-clients',
        '/edu-api/admin/wiki-visibility', `/edu-api/users/${d.pick(real)}/events`,
      ]);
      // Guesses against made-up accounts most of the time, sometimes a real one (its lockout is the point); a tenth
      // of the requests are a real user's right password, verified once and then never throttled.
      const user = d.oneOf([() => `spray-${d.int(5_000)}`, () => `spray-${d.int(5_000)}@edu.test`, () => `EDU\\spray-${d.int(50)}`, () => d.pick(real), () => nastyString(d, 2).replace(/:/g, '')]);
      const authorization = d.chance(0.1) ? d.pick(verified) : basicAuth(user, d.pick(PASSWORDS));
      return { method: 'GET', target, headers: [['authorization', authorization], ['x-service-groups', 'Lehrer']], body: '' };
    };
  },
  check(_req, answer) {
    if (answer.status === 429 && !/^[1-9][0-9]*$/.test(answer.headers['retry-after'] ?? '')) return '429 without Retry-After';
    return undefined;
  },
});
