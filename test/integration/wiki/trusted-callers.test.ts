// Calls on behalf of a user (wiki.trusted_callers, X-Service-User) through the running service and the testbed DC:
// who may name a user (403 otherwise), technical accounts without a user (400 instead of an empty answer), accounts
// a trusted caller may not name, those the directory would not let log on among them (403 naming the rule), a name
// the directory does not know (no hits, `no_access` says why), the configured accounts told by SID whatever their
// spelling, and membership changes, which take effect once the cached token expires (min(60 s, ldap.cache_ttl); 2 s
// here). The equivalence of a trusted call
// with the user's own login is shown page by page in acl-matrix.test.ts and permission-oracle.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { ScratchAccounts, type ScratchAccount } from './scratch-accounts.js';
import { eventually, passAfter, WikiClient, type Caller } from './wiki-service.js';
import { testSearchClient } from '../../support/es-indices.js';

/** How long a verified login or a looked-up user is reused in this test's service (ldap.cache_ttl). */
const TOKEN_TTL_MS = 2_000;
const ENDPOINTS = [
  ['/wiki/search', { q: 'Pythagoras' }],
  ['/wiki/roots', undefined],
  ['/wiki/pages?share=schule&folder=Fachschaften%2FMathe', undefined],
] as const;
/** Pages of the testbed seen by Lehrer (Fachschaften/Deutsch) and by Schueler (Schülerzeitung). */
const LEHRER_PAGE = 'schule:Fachschaften/Deutsch/.wiki/lektüre.md';
const SCHUELER_PAGE = 'schule:Schülerzeitung/.wiki/index.md';

/** `service`'s count of X-Service-User refusals under `rule`. */
async function refusalCount(service: RunningService, rule: string): Promise<number> {
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  return Number(new RegExp(`^fileproxy_wiki_service_user_refusals_total\\{rule="${rule}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
}

interface ErrorBody {
  status: string;
  error: string;
  message: string;
}

describe('wiki calls on behalf of a user (trusted callers)', () => {
  const prefix = `sso${randomBytes(3).toString('hex')}`;
  let env: TestbedEnv;
  let accounts: ScratchAccounts;
  let service: RunningService | undefined;
  let api: WikiClient;
  let portal: ScratchAccount;
  let untrusted: ScratchAccount;

  before(async () => {
    env = await readTestbedEnv();
    accounts = new ScratchAccounts(env);
    portal = await accounts.createUser(`${prefix}-portal`);
    untrusted = await accounts.createUser(`${prefix}-other`);
    const started = Date.now();
    service = await startService({ wiki: { trusted_callers: [portal.name] }, ldap: { cache_ttl: `${TOKEN_TTL_MS}ms` } });
    api = new WikiClient(service.url, env);
    await passAfter(service, started);
    await eventually(async () => assert.equal((await api.search({ user: 'anna', groups: ['Lehrkräfte Mathe'] }, { q: 'Pythagoras' })).total, 1));
  });
  after(async () => {
    await service?.stop();
    await accounts?.removeAll();
  });
  /** The service's count of X-Service-User refusals under `rule`. */
  const refusals = async (rule: string) => refusalCount(service!, rule);

  it('finds for a trusted caller what the named user finds, by account name or principal name', async () => {
    for (const user of ['anna', `anna@${env.smb.realm.toLowerCase()}`]) {
      const caller: Caller = { user, groups: ['Lehrkräfte Mathe'], via: portal };
      assert.deepEqual(await api.searchedPages(caller, { q: 'Pythagoras' }), ['schule:Fachschaften/Mathe/.wiki/formeln.md'], user);
    }
  });

  it('answers 403 untrusted_caller when an account not in wiki.trusted_callers sends X-Service-User', async () => {
    const forgers = [untrusted, { name: 'anna', password: env.users['anna']!.password }, { name: env.indexer.user, password: env.indexer.password }];
    for (const via of forgers) {
      for (const [path, body] of ENDPOINTS) {
        const res = await api.request<ErrorBody>(path, { caller: { user: 'fpadmin', groups: ['Schul-Admins'], via }, body });
        assert.equal(res.status, 403, `${via.name} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'untrusted_caller');
      }
    }
    const metrics = await (await fetch(`${service!.url}/metrics`)).text();
    assert.match(metrics, /^fileproxy_wiki_on_behalf_calls_total\{result="untrusted"\} 9$/m, 'each refusal is counted');
  });

  it('answers 400 service_user_required for a technical account without X-Service-User, not an empty result', async () => {
    for (const account of [portal, { name: env.indexer.user, password: env.indexer.password }]) {
      for (const [path, body] of ENDPOINTS) {
        const res = await api.request<ErrorBody>(path, {
          body,
          headers: { authorization: api.authorization(account.name, account.password), 'x-service-groups': 'Lehrer' },
        });
        assert.equal(res.status, 400, `${account.name} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, 'service_user_required');
        assert.match(res.body.message, /X-Service-User is missing/);
      }
    }
    // admin.user is an account administrators log in with: it reads the wiki as itself.
    assert.equal((await api.request('/wiki/roots', { caller: { user: 'fpadmin', groups: ['Schul-Admins'] } })).status, 200);
  });

  it('gives an unknown user no hits and says why in no_access', async () => {
    const caller: Caller = { user: `${prefix}-nobody`, groups: ['Lehrer', 'Lehrkräfte Mathe'], via: portal };
    const answers = [await api.search(caller, { q: 'Pythagoras' }), await api.roots(caller), await api.pages(caller, 'schule', 'Fachschaften/Mathe')];
    assert.deepEqual(answers, [
      { total: 0, hits: [], no_access: 'user_unknown' },
      { roots: [], no_access: 'user_unknown' },
      { total: 0, pages: [], no_access: 'user_unknown' },
    ]);
  });

  it('refuses (403 naming the rule, counted) an account the directory would not let log on: disabled, locked out, expired, password expired', async () => {
    // main at 88de901 answered each of these with 200, no hits and no_access (only /dav/ refused them).
    const state = async (name: string, change: (name: string) => Promise<void>) => {
      const account = await accounts.createUser(`${prefix}-${name}`, ['Lehrer', 'Lehrkräfte Mathe']);
      await change(account.name);
      return account;
    };
    const disabled = await state('off', (name) => accounts.disable(name));
    const cases = [
      [disabled, 'disabled'],
      [await state('lck', (name) => accounts.lockOut(name)), 'locked'],
      [await state('exp', (name) => accounts.expire(name)), 'expired'],
      [await state('pwx', (name) => accounts.expirePassword(name)), 'password_expired'],
    ] as const;
    for (const [account, rule] of cases) {
      for (const [path, body] of ENDPOINTS) {
        const before = await refusals(rule);
        const res = await api.request<ErrorBody>(path, { caller: { user: account.name, groups: ['Lehrer', 'Lehrkräfte Mathe'], via: portal }, body });
        assert.equal(res.status, 403, `${account.name} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, `service_user_${rule}`, `${account.name} ${path}`);
        assert.match(res.body.message, new RegExp(`^X-Service-User: ${account.name} `, 'i'));
        assert.equal(await refusals(rule), before + 1, `${account.name} ${path}: counted under ${rule}`);
      }
    }
    // The disabled account's own login is refused by the directory.
    const own = await api.request('/wiki/roots', { headers: { authorization: api.authorization(disabled.name, disabled.password) } });
    assert.equal(own.status, 401);
  });

  it('answers 401 for a trusted caller with a wrong password and 400 for a malformed X-Service-User', async () => {
    const wrong = await api.request<ErrorBody>('/wiki/roots', { caller: { user: 'anna', groups: ['Lehrer'], via: { name: portal.name, password: 'wrong' } } });
    assert.equal(wrong.status, 401);
    for (const header of ['anna,ben', 'anna%2Cben', 'a%00b', 'EDU%5Canna', 'x'.repeat(300), '']) {
      const res = await api.request<ErrorBody>('/wiki/roots', {
        headers: { authorization: api.authorization(portal.name, portal.password), 'x-service-user': header, 'x-service-groups': 'Lehrer' },
      });
      assert.equal(res.status, 400, JSON.stringify(header));
      assert.equal(res.body.error, 'bad_service_user_header');
    }
  });

  it('refuses (403 naming the rule, counted) accounts a trusted caller may not act for, as constrained delegation would', async () => {
    // main at b8fc48f answered each of these with 200 and the account's own view (the indexer's: every page).
    const notDelegated = await accounts.createUser(`${prefix}-nodel`, ['Lehrer'], { userAccountControl: 0x200 | 0x100000 });
    const protectedUser = await accounts.createUser(`${prefix}-prot`, ['Lehrer', 'Protected Users']);
    const domainAdmin = await accounts.createUser(`${prefix}-da`, ['Lehrer', 'Domain Admins']);
    // main at 97bc735 answered these three with 200: the groups were missing from the list, adminCount was not read.
    const policyOwner = await accounts.createUser(`${prefix}-gpo`, ['Lehrer', 'Group Policy Creator Owners']);
    const dnsAdmin = await accounts.createUser(`${prefix}-dns`, ['Lehrer', 'DnsAdmins']);
    const formerAdmin = await accounts.createUser(`${prefix}-ac`, ['Lehrer'], { adminCount: 1 });
    const computer = await accounts.createComputer(`${prefix}-ws`);
    const cases = [
      [computer.name, 'computer'],
      ['krbtgt', 'krbtgt'],
      [env.indexer.user, 'indexer'],
      [portal.name, 'trusted_caller'],
      [notDelegated.name, 'not_delegated'],
      [protectedUser.name, 'protected_user'],
      [domainAdmin.name, 'admin'],
      [policyOwner.name, 'admin'],
      [dnsAdmin.name, 'admin'],
      [formerAdmin.name, 'admin_count'],
      [env.dc_admin.user, 'admin'],
      [env.admin.user, 'admin'], // a member of admin.groups
    ] as const;
    for (const [user, rule] of cases) {
      const before = await refusals(rule);
      const res = await api.request<ErrorBody>('/wiki/roots', { caller: { user, groups: ['Lehrer'], via: portal } });
      assert.equal(res.status, 403, `${user}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, `service_user_${rule}`, user);
      assert.match(res.body.message, new RegExp(`X-Service-User: ${user.replace('$', '\\$')} `, 'i'));
      assert.equal(await refusals(rule), before + 1, `${user}: counted under ${rule}`);
    }
    assert.equal((await api.request('/wiki/roots', { caller: { user: 'anna', groups: ['Lehrer'], via: portal } })).status, 200, 'an ordinary user');
  });

  it('answers bad input in X-Service-User without marking the directory down for others', async () => {
    // 200 emoji are 200 characters but 400 UTF-16 units: main at b8fc48f accepted the header (characters) and
    // failed the lookup (units) as a directory error: 503, and the next uncached lookup of anyone got 503 too.
    const emoji = '\u{1F600}'.repeat(200);
    const named = await api.request<{ no_access?: string }>('/wiki/roots', { caller: { user: emoji, groups: ['Lehrer'], via: portal } });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.equal(named.body.no_access, 'user_unknown');
    const tooLong = await api.request<ErrorBody>('/wiki/roots', { caller: { user: '\u{1F600}'.repeat(257), groups: ['Lehrer'], via: portal } });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.error, 'bad_service_user_header');
    const other = await accounts.createUser(`${prefix}-next`, ['Lehrer']);
    assert.equal((await api.request('/wiki/roots', { caller: { user: other.name, groups: ['Lehrer'], via: portal } })).status, 200, 'an uncached user right after');
  });

  it(`stops showing a group's pages to a user removed from it once the cached token expires (${TOKEN_TTL_MS} ms here)`, async () => {
    const member = await accounts.createUser(`${prefix}-mem`, ['Lehrer', 'Schueler']);
    const wiki = new WikiClient(service!.url, { ...env, users: { ...env.users, [member.name]: { password: member.password, groups: [], sid: member.sid } } });
    const direct: Caller = { user: member.name, groups: ['Lehrer', 'Schueler'] };
    const trusted: Caller = { ...direct, via: portal };
    const seen = async (caller: Caller) => (await wiki.listedPages(caller)).filter((page) => [LEHRER_PAGE, SCHUELER_PAGE].includes(page));
    for (const caller of [direct, trusted]) assert.deepEqual(await seen(caller), [LEHRER_PAGE, SCHUELER_PAGE]);
    const removed = Date.now();
    await accounts.removeFromGroup(member.name, 'Lehrer');
    for (const caller of [direct, trusted]) {
      await eventually(async () => assert.deepEqual(await seen(caller), [SCHUELER_PAGE]), TOKEN_TTL_MS + 5_000);
    }
    console.log(`trusted callers: removal from Lehrer took effect after ${Date.now() - removed} ms (token TTL ${TOKEN_TTL_MS} ms)`);
  });
});

describe('trusted callers and the indexer configured by another spelling of their accounts', () => {
  // The rules compare accounts (SIDs), not names: the config may name an account by an explicit userPrincipalName
  // whose suffix and user part differ from the domain and the sAMAccountName, and a caller may name it by any other.
  const prefix = `ssu${randomBytes(3).toString('hex')}`;
  const elsewhere = 'schule.example';
  let env: TestbedEnv;
  let accounts: ScratchAccounts;
  let service: RunningService | undefined;
  let api: WikiClient;
  let indexer: ScratchAccount;
  let plain: ScratchAccount;
  let spelt: ScratchAccount;
  let dir: string;

  before(async () => {
    env = await readTestbedEnv();
    accounts = new ScratchAccounts(env);
    indexer = await accounts.createUser(`${prefix}-ix`, [], { userPrincipalName: `ix.${prefix}@${elsewhere}` });
    plain = await accounts.createUser(`${prefix}-p1`);
    spelt = await accounts.createUser(`${prefix}-p2`, [], { userPrincipalName: `portal.${prefix}@${elsewhere}` });
    dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
    const passwordFile = path.join(dir, 'indexer.secret');
    await writeFile(passwordFile, `${indexer.password}\n`, { mode: 0o600 });
    service = await startService({
      smb: { shares: [{ name: 'schule' }], indexer_service_account: { user: `ix.${prefix}@${elsewhere}`, password_file: passwordFile } },
      wiki: { trusted_callers: [plain.name, `portal.${prefix}@${elsewhere}`] },
      // An index of its own: this indexer reads less than the testbed's, and must not change what other tests find.
      elasticsearch: { index_prefix: `test-${prefix}` },
      reconciler: { interval: '1h', watch: false },
    });
    api = new WikiClient(service.url, env);
  });
  after(async () => {
    await service?.stop();
    await accounts?.removeAll();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    const es = testSearchClient(env.es.url);
    const indices = Object.keys(await es.indices.get({ index: `test-${prefix}*`, allow_no_indices: true }));
    if (indices.length > 0) await es.indices.delete({ index: indices });
    await es.close();
  });

  it('refuses the indexer named by its sAMAccountName, its UPN or its implicit UPN (403 service_user_indexer), and DOMAIN\\name (400)', async () => {
    // main at 88de901 compared names: each of the first three was served as the indexer (200), whose SID is on every page.
    for (const name of [indexer.name, `ix.${prefix}@${elsewhere}`, `${indexer.name}@${env.smb.realm.toLowerCase()}`]) {
      const before = await refusalCount(service!, 'indexer');
      const res = await api.request<ErrorBody>('/wiki/roots', { caller: { user: name, groups: ['Lehrer'], via: plain } });
      assert.equal(res.status, 403, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, 'service_user_indexer', name);
      assert.equal(await refusalCount(service!, 'indexer'), before + 1, `${name}: counted`);
    }
    const domainName = await api.request<ErrorBody>('/wiki/roots', { caller: { user: `${env.smb.domain}\\${indexer.name}`, groups: ['Lehrer'], via: plain } });
    assert.deepEqual([domainName.status, domainName.body.error], [400, 'bad_service_user_header']);
  });

  it('knows a trusted caller configured by its UPN: it may call, may not be named, and never reads as itself', async () => {
    // main at 88de901: 403 untrusted_caller for its calls, and 200 when the other trusted caller named it.
    const onBehalf = await api.request<ErrorBody>('/wiki/roots', { caller: { user: 'anna', groups: ['Lehrer'], via: spelt } });
    assert.equal(onBehalf.status, 200, JSON.stringify(onBehalf.body));
    for (const name of [spelt.name, `portal.${prefix}@${elsewhere}`]) {
      const res = await api.request<ErrorBody>('/wiki/roots', { caller: { user: name, groups: ['Lehrer'], via: plain } });
      assert.deepEqual([res.status, res.body.error], [403, 'service_user_trusted_caller'], name);
    }
    for (const account of [spelt, indexer]) {
      const res = await api.request<ErrorBody>('/wiki/roots', { headers: { authorization: api.authorization(account.name, account.password) } });
      assert.deepEqual([res.status, res.body.error], [400, 'service_user_required'], account.name);
    }
  });
});
