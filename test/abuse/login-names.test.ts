// Login-name spellings (issue 27, item 1): 10,000 names (and 10,000 more in the warm-up) on every
// Basic-authenticated surface — the real accounts spelt every way the service accepts (DOMAIN\user, the DNS
// domain\user, user@realm in any case, padded) and ways it refuses (DOMAIN\user\more, two "@", control
// characters), and made-up names — all with wrong passwords. Every answer is 401 or 429, never 5xx, and the
// per-account budget holds across spellings: no account gets more than max_failures 401s in all, however spelt.
// The client address is trusted (as a portal's would be), so that only the account budgets count.
import { loginBudget } from '../../src/ldap/login-name.js';
import { basicAuth } from '../integration/webhooks/api.js';
import { abuseSuite } from './support/campaign.js';
import { nastyString, type Dice } from './support/hostile-input.js';
import type { RawRequest } from './support/raw-http.js';

const MAX_FAILURES = 5;
/** 401s answered per failure budget (loginBudget of the name sent) over both campaigns. */
const refusedPerBudget = new Map<string, number>();
/** The login name each authorization value carries. */
const names = new Map<string, string>();

function spelling(d: Dice, account: string, realm: string, domain: string): string {
  const cased = d.pick([account, account.toUpperCase(), account[0]!.toUpperCase() + account.slice(1)]);
  return d.pick([
    cased, ` ${cased} `, `${domain}\\${cased}`, `${domain.toLowerCase()}\\${cased}`, `${realm}\\${cased}`,
    `${cased}@${realm}`, `${cased}@${realm.toUpperCase()}`, `${cased}@elsewhere.example`,
    // refused before anything is asked (401): a name the logon could read as another account than the budget
    `${domain}\\${cased}\\s${d.int(1_000)}`, `${domain}\\${cased}@${realm}`, `${cased}@${realm}@x`, `\\${cased}`, `${cased}\u0000`,
  ]);
}

abuseSuite({
  name: 'login-name spellings',
  config: { auth: { max_failures: MAX_FAILURES, max_address_failures: 0, trusted_addresses: ['127.0.0.1'], lockout: '30m', failure_window: '1h' } },
  async prepare(_service, env) {
    const real = Object.keys(env.users);
    const realm = env.smb.realm.toLowerCase();
    return (d: Dice, i: number): RawRequest => {
      const name = d.oneOf([
        () => spelling(d, d.pick(real), realm, env.smb.domain),
        () => spelling(d, d.pick(real), realm, env.smb.domain),
        () => spelling(d, `made-up-${d.int(300)}`, realm, env.smb.domain),
        () => nastyString(d, 2).replace(/:/g, '') || 'x', // (an empty user name is a malformed header: 400)
      ]);
      const authorization = basicAuth(name, `wrong-${i}`);
      names.set(authorization, name);
      const target = d.pick(['/wiki/roots', '/dav/schule/Aushang.txt', '/edu-api/admin/webhook-clients', `/edu-api/users/${encodeURIComponent(d.pick(real))}/events`]);
      return { method: 'GET', target, headers: [['authorization', authorization], ['x-service-groups', 'Lehrer']], body: '' };
    };
  },
  check(req, answer) {
    const sent = names.get(String(req.headers.find(([header]) => header === 'authorization')?.[1]));
    // The credentials are decoded as UTF-8 text, which drops a leading byte order mark: a name of only that is empty.
    const name = sent?.replace(/^\uFEFF/, '');
    if (name === '' && answer.status === 400) return undefined;
    if (answer.status !== 401 && answer.status !== 429) return `status ${answer.status} for a wrong password (401 or 429 expected)`;
    if (answer.status === 429 && !/^[1-9][0-9]*$/.test(answer.headers['retry-after'] ?? '')) return '429 without Retry-After';
    if (answer.status !== 401 || name === undefined) return undefined;
    let budget: string;
    try {
      budget = loginBudget(name);
    } catch {
      return undefined; // refused before counting: spends no budget
    }
    const refused = (refusedPerBudget.get(budget) ?? 0) + 1;
    refusedPerBudget.set(budget, refused);
    return refused > MAX_FAILURES ? `${refused} wrong passwords for "${budget}" were checked (at most ${MAX_FAILURES}, however spelt)` : undefined;
  },
});
