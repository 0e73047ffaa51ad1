// Login-name spellings (issue 27, item 1): 10,000 names (and 10,000 more in the warm-up) on every
// Basic-authenticated surface — the real accounts spelt every way the service accepts (DOMAIN\user, the DNS
// domain\user, user@realm in any case, padded, and for an account made here its explicit UPN, whose user part is
// not its account name) and ways it refuses (DOMAIN\user\more, two "@", control characters), and made-up names —
// all with wrong passwords. Every answer is 401 or 429, never 5xx, and the per-account budget holds across
// spellings: no account gets more than max_failures 401s in all, however spelt. The 401s are tallied per account
// the generator spelt, not by the service's own reading of the name, so that a service which stopped merging
// spellings would fail here. The client address is trusted (as a portal's would be), so that only the account
// budgets count.
import { randomBytes } from 'node:crypto';
import { basicAuth } from '../integration/webhooks/api.js';
import { ScratchAccounts } from '../integration/wiki/scratch-accounts.js';
import { abuseSuite } from './support/campaign.js';
import { nastyString, type Dice } from './support/hostile-input.js';
import type { RawRequest } from './support/raw-http.js';

const MAX_FAILURES = 5;
/** 401s answered per account spelt, over both campaigns. */
const refusedPerAccount = new Map<string, number>();
/**
 * The login name each authorization value carries, and the account it spells: undefined for a name refused before
 * anything is counted, and for random strings, which spell no account.
 */
const names = new Map<string, { name: string; account?: string }>();

/** An account's name, or a principal name, in one of the letter cases a user might type. */
const anyCase = (d: Dice, name: string) => d.pick([name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)]);

function spelling(d: Dice, account: string, realm: string, domain: string): { name: string; account?: string } {
  const cased = anyCase(d, account);
  const counted = [
    cased, ` ${cased} `, `${domain}\\${cased}`, `${domain.toLowerCase()}\\${cased}`, `${realm}\\${cased}`,
    `${cased}@${realm}`, `${cased}@${realm.toUpperCase()}`, `${cased}@elsewhere.example`,
  ].map((name) => ({ name, account: account.toLowerCase() }));
  // refused before anything is asked (401): a name the logon could read as another account than the budget
  const refused = [
    `${domain}\\${cased}\\s${d.int(1_000)}`, `${domain}\\${cased}@${realm}`, `${cased}@${realm}@x`, `\\${cased}`, `${cased}\u0000`,
  ].map((name) => ({ name }));
  return d.pick([...counted, ...refused]);
}

const UPN_ACCOUNT = `lnupn${randomBytes(3).toString('hex')}`;
/** The explicit UPN of UPN_ACCOUNT: another user part, another suffix. */
const UPN = `other-${UPN_ACCOUNT}@schule.example`;
let accounts: ScratchAccounts | undefined;

abuseSuite({
  name: 'login-name spellings',
  config: { auth: { max_failures: MAX_FAILURES, max_address_failures: 0, trusted_addresses: ['127.0.0.1'], lockout: '30m', failure_window: '1h' } },
  async prepare(_service, env) {
    accounts = new ScratchAccounts(env);
    await accounts.createUser(UPN_ACCOUNT, [], { userPrincipalName: UPN });
    const real = [...Object.keys(env.users), UPN_ACCOUNT];
    const realm = env.smb.realm.toLowerCase();
    return (d: Dice, i: number): RawRequest => {
      const spelt = d.oneOf([
        () => spelling(d, d.pick(real), realm, env.smb.domain),
        () => spelling(d, d.pick(real), realm, env.smb.domain),
        () => ({ name: anyCase(d, UPN), account: UPN_ACCOUNT }),
        () => spelling(d, `made-up-${d.int(300)}`, realm, env.smb.domain),
        () => ({ name: nastyString(d, 2).replace(/:/g, '') || 'x' }), // (an empty user name is a malformed header: 400)
      ]);
      const authorization = basicAuth(spelt.name, `wrong-${i}`);
      names.set(authorization, spelt);
      const target = d.pick(['/wiki/roots', '/dav/schule/Aushang.txt', '/edu-api/admin/webhook-clients', `/edu-api/users/${encodeURIComponent(d.pick(real))}/events`]);
      return { method: 'GET', target, headers: [['authorization', authorization], ['x-service-groups', 'Lehrer']], body: '' };
    };
  },
  async cleanup() {
    await accounts?.removeAll();
  },
  check(req, answer) {
    const sent = names.get(String(req.headers.find(([header]) => header === 'authorization')?.[1]));
    // The credentials are decoded as UTF-8 text, which drops a leading byte order mark: a name of only that is empty.
    const name = sent?.name.replace(/^\uFEFF/, '');
    if (name === '' && answer.status === 400) return undefined;
    if (answer.status !== 401 && answer.status !== 429) return `status ${answer.status} for a wrong password (401 or 429 expected)`;
    if (answer.status === 429 && !/^[1-9][0-9]*$/.test(answer.headers['retry-after'] ?? '')) return '429 without Retry-After';
    const account = sent?.account;
    if (answer.status !== 401 || account === undefined) return undefined;
    const refused = (refusedPerAccount.get(account) ?? 0) + 1;
    refusedPerAccount.set(account, refused);
    return refused > MAX_FAILURES ? `${refused} wrong passwords for account "${account}" were checked (at most ${MAX_FAILURES}, however spelt)` : undefined;
  },
});
