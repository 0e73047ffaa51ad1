// ViewerResolver's decisions against a scripted directory; the real directory is used in test/integration/wiki/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { parseLoginName } from '../../../src/ldap/login-name.js';
import type { AccountState, DirectoryUser, LookedUpUser } from '../../../src/ldap/directory.js';
import { AUTHENTICATED_USERS_SID, EVERYONE_SID } from '../../../src/wiki/acl.js';
import { ViewerResolver, type ViewerAnswer } from '../../../src/viewer/viewer.js';

const DOMAIN = 'S-1-5-21-10-20-30';
const ANNA = `${DOMAIN}-1105`;
const DOMAIN_USERS = `${DOMAIN}-513`;
const GROUPS: Record<string, string> = {
  Lehrer: `${DOMAIN}-1101`, 'Lehrkräfte Mathe': `${DOMAIN}-1102`, Verwaltung: `${DOMAIN}-1104`, DnsAdmins: `${DOMAIN}-1110`,
};
/** A group anna is in only through Lehrer (nested); tokenGroups lists it, no header names it. */
const KOLLEGIUM = `${DOMAIN}-1103`;
/** anna's whole token: what deny entries are always matched with. */
const ANNA_TOKEN = [ANNA, GROUPS['Lehrer']!, GROUPS['Lehrkräfte Mathe']!, KOLLEGIUM, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort();

/**
 * Accounts of the scripted directory besides anna, password `pw`: the portal's (trusted), the indexer's and admin.user;
 * a lookup finds each by its sAMAccountName, `SCHULE\name` or `name@schule.local`.
 */
const SERVICE_ACCOUNTS: Record<string, string> = { portal: `${DOMAIN}-1201`, 'svc-indexer': `${DOMAIN}-1202`, fpadmin: `${DOMAIN}-1203` };

/**
 * A directory where anna (password `pw`) is in Lehrer (and through it Kollegium), Lehrkräfte Mathe and Domain Users;
 * `down` makes every call fail; `annaState` is what a lookup of anna reports, `annaGroups` her tokenGroups.
 */
function scriptedDirectory() {
  /** `users`: lookups of other users than SERVICE_ACCOUNTS, which go to `accounts`. */
  const calls = { logins: 0, lookups: [] as string[][], users: [] as string[], accounts: [] as string[], sids: [] as string[] };
  const state = {
    down: false,
    annaState: 'active' as AccountState,
    annaGroups: [GROUPS['Lehrer']!, GROUPS['Lehrkräfte Mathe']!, KOLLEGIUM, DOMAIN_USERS],
  };
  const unavailable = () => new DirectoryError('directory_unavailable', 'connect ECONNREFUSED');
  const directory = {
    loginName: (user: string) => parseLoginName(user, { realm: 'schule.local', domain: 'SCHULE' }),
    async authenticateUser(user: string, password: string): Promise<DirectoryUser> {
      calls.logins++;
      if (state.down) throw unavailable();
      if (password !== 'pw') throw new DirectoryError('invalid_credentials', 'invalid user name or password');
      if (user === 'anna') return { dn: 'CN=anna', account: 'anna', sid: ANNA, groups: [], groupSids: state.annaGroups };
      const account = user.replace(/@schule\.local$/i, ''); // the directory binds a UPN too
      const sid = SERVICE_ACCOUNTS[account];
      if (sid === undefined) throw new DirectoryError('invalid_credentials', 'invalid user name or password');
      return { dn: `CN=${account}`, account, sid, groups: [], groupSids: [DOMAIN_USERS] };
    },
    async lookupUser(name: string): Promise<LookedUpUser | null> {
      const service = name.replace(/^SCHULE\\|@schule\.local$/gi, '').toLowerCase();
      const sid = SERVICE_ACCOUNTS[service];
      (sid === undefined ? calls.users : calls.accounts).push(name);
      if (state.down) throw unavailable();
      if (sid !== undefined) return { account: service, sid, groupSids: [DOMAIN_USERS], state: 'active', computer: false, notDelegated: false, adminCount: false };
      if (!['anna', 'anna@schule.local'].includes(name.toLowerCase())) return null;
      return { account: 'anna', sid: ANNA, groupSids: state.annaGroups, state: state.annaState, computer: false, notDelegated: false, adminCount: false };
    },
    /** Only anna has a SID a test's ticket names. */
    async lookupUserBySid(sid: string): Promise<LookedUpUser | null> {
      calls.sids.push(sid);
      if (state.down) throw unavailable();
      return sid === ANNA ? { account: 'anna', sid: ANNA, groupSids: state.annaGroups, state: state.annaState, computer: false, notDelegated: false, adminCount: false } : null;
    },
    async resolveGroupSids(names: readonly string[]): Promise<Map<string, string>> {
      calls.lookups.push([...names]);
      if (state.down) throw unavailable();
      return new Map(names.flatMap((name) => (GROUPS[name] ? [[name, GROUPS[name]!] as const] : [])));
    },
  };
  return { directory, calls, state };
}

/** lru-cache treats a start time of 0 as "never expires", so test clocks start later. */
const T0 = 1_000_000;

function resolver(directory: ReturnType<typeof scriptedDirectory>['directory'] | null, clock = { now: T0 }, indexerAccount = 'svc-indexer') {
  return new ViewerResolver({
    directory,
    callers: {
      trustedCallers: ['SCHULE\\portal'],
      indexerAccount,
      adminAccount: 'fpadmin',
      adminGroups: [],
      domain: { realm: 'schule.local', domain: 'SCHULE' },
      mayNameAdmins: false,
    },
    visibleShares: (groups) => (groups.includes('Lehrkräfte Mathe') ? ['schule', 'mathe'] : ['schule']),
    guard: { admit: async (attempt) => ({ admitted: true, counted: attempt }), settle: () => undefined },
    loginTtlMs: 60_000,
    groupTtlMs: 300_000,
    negativeGroupTtlMs: 30_000,
    outageCooldownMs: 5_000,
    now: () => clock.now,
  });
}

const anna = (groupsHeader: string | undefined, password = 'pw') => ({ user: 'anna', password, groupsHeader, serviceUserHeader: undefined, clientAddress: '127.0.0.1' });
/** `caller` (password `pw`) calling on behalf of `serviceUserHeader`. */
const onBehalf = (caller: string, serviceUserHeader: string | undefined, groupsHeader: string | undefined) =>
  ({ user: caller, password: 'pw', groupsHeader, serviceUserHeader, clientAddress: '127.0.0.1' });

function sidsOf(answer: ViewerAnswer): string[] {
  assert.ok(answer.ok, JSON.stringify(answer));
  return [...answer.allowSids].sort();
}

function denySidsOf(answer: ViewerAnswer): string[] {
  assert.ok(answer.ok, JSON.stringify(answer));
  return [...answer.denySids].sort();
}

describe('ViewerResolver', () => {
  it('counts header groups the token confirms, adds Domain Users, Everyone and Authenticated Users', async () => {
    const answer = await resolver(scriptedDirectory().directory).resolve(anna('Lehrer,Lehrkr%C3%A4fte%20Mathe'));
    assert.deepEqual(sidsOf(answer), [GROUPS['Lehrer'], GROUPS['Lehrkräfte Mathe'], ANNA, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort());
    assert.deepEqual(answer.ok && answer.shares, ['schule', 'mathe']);
    assert.equal(answer.ok && answer.userSid, ANNA);
  });

  it('lets the header narrow the groups, never widen them', async () => {
    const narrowed = await resolver(scriptedDirectory().directory).resolve(anna('Lehrer,Verwaltung'));
    assert.deepEqual(sidsOf(narrowed), [GROUPS['Lehrer'], ANNA, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort());
    assert.deepEqual(narrowed.ok && narrowed.shares, ['schule']);
  });

  it('matches deny entries with the whole token, nested groups included, whatever the header narrows', async () => {
    const viewers = resolver(scriptedDirectory().directory);
    for (const header of ['Lehrer', 'Lehrkr%C3%A4fte%20Mathe', 'Lehrer,Verwaltung', undefined, 'Unbekannt']) {
      assert.deepEqual(denySidsOf(await viewers.resolve(anna(header))), ANNA_TOKEN, String(header));
    }
  });

  it('fails closed: no header, only foreign or unknown groups, injection attempts give the empty set', async () => {
    const viewers = resolver(scriptedDirectory().directory);
    for (const header of [undefined, '', 'Verwaltung', 'Unbekannt', '*)(cn=*', 'Domain Users']) {
      const answer = await viewers.resolve(anna(header));
      assert.deepEqual({ ...answer, denySids: denySidsOf(answer) }, { ok: true, account: 'anna', userSid: ANNA, allowSids: [], denySids: ANNA_TOKEN, shares: [] }, String(header));
    }
  });

  it('answers 400 for a malformed header, 401 for wrong credentials, 503 when the directory cannot check them', async () => {
    const { directory, state } = scriptedDirectory();
    const viewers = resolver(directory);
    assert.deepEqual(await viewers.resolve(anna('Sch%zzler')), {
      ok: false,
      status: 400,
      error: 'bad_groups_header',
      message: "X-Service-Groups: group 1: '%zz' is not a percent escape (expected % and two hex digits)",
    });
    assert.equal((await viewers.resolve(anna('Lehrer', 'wrong'))).ok === false && 401, 401);
    state.down = true;
    const down = await viewers.resolve(anna('Lehrer'));
    assert.ok(!down.ok && down.status === 503 && down.error === 'directory_unavailable');
  });

  it('reuses a verified login for its TTL, keyed by user and password together', async () => {
    const clock = { now: T0 };
    const { directory, calls } = scriptedDirectory();
    const viewers = resolver(directory, clock);
    await viewers.resolve(anna('Lehrer'));
    await viewers.resolve(anna('Lehrer'));
    assert.equal(calls.logins, 1);
    assert.equal((await viewers.resolve(anna('Lehrer', 'pw2'))).ok, false, 'another password is checked, not served from the cache');
    assert.equal(calls.logins, 2);
    clock.now = T0 + 60_001;
    await viewers.resolve(anna('Lehrer'));
    assert.equal(calls.logins, 3);
    const { serviceUserRefusals: _, ...counts } = viewers.stats;
    assert.deepEqual(counts, { logins: 2, cachedLogins: 1, rejectedLogins: 1, directoryErrors: 0, negotiatedCalls: 0, onBehalfCalls: 0, untrustedOnBehalfCalls: 0 });
  });

  it('binds once for concurrent calls with the same credentials, so that the throttle counts one attempt', async () => {
    const { directory, calls } = scriptedDirectory();
    const viewers = resolver(directory);
    const answers = await Promise.all(Array.from({ length: 8 }, () => viewers.resolve(anna('Lehrer'))));
    assert.ok(answers.every((answer) => answer.ok));
    assert.equal(calls.logins, 1);
    const refused = await Promise.all(Array.from({ length: 3 }, () => viewers.resolve(anna('Lehrer', 'wrong'))));
    assert.ok(refused.every((answer) => !answer.ok && answer.status === 401), JSON.stringify(refused));
    assert.equal(calls.logins, 2, 'the same wrong password is one failed attempt, not three');
    await viewers.resolve(anna('Lehrer', 'wrong'));
    assert.equal(calls.logins, 3, 'once settled, the next try binds again');
  });

  it('keeps serving cached groups during a directory outage and resolves nothing new', async () => {
    const clock = { now: T0 };
    const { directory, calls, state } = scriptedDirectory();
    const viewers = resolver(directory, clock);
    await viewers.resolve(anna('Lehrer')); // caches anna's login and Lehrer
    state.down = true;
    calls.lookups.length = 0;
    const answer = await viewers.resolve(anna('Lehrer,Lehrkr%C3%A4fte%20Mathe'));
    assert.deepEqual(sidsOf(answer), [GROUPS['Lehrer'], ANNA, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort());
    assert.deepEqual(calls.lookups, [['Lehrkräfte Mathe']], 'one failed lookup; the retry per name fails fast');
    await viewers.resolve(anna('Lehrkr%C3%A4fte%20Mathe'));
    assert.equal(calls.lookups.length, 1, 'the directory is not asked again during the cooldown');
    clock.now = T0 + 5_001;
    state.down = false;
    assert.deepEqual(
      sidsOf(await viewers.resolve(anna('Lehrkr%C3%A4fte%20Mathe'))),
      [GROUPS['Lehrkräfte Mathe'], ANNA, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort(),
      'resolves again after the cooldown',
    );
  });

  it('without a directory (no ldap.base_dn) every caller gets the empty set, never an error', async () => {
    assert.deepEqual(await resolver(null).resolve(anna('Lehrer')), { ok: true, account: null, userSid: null, allowSids: [], denySids: [], shares: [] });
  });

  describe('on behalf of a user (X-Service-User)', () => {
    it('gives a trusted caller naming a user exactly the sets of that user\'s own login', async () => {
      const viewers = resolver(scriptedDirectory().directory);
      for (const header of ['Lehrer,Lehrkr%C3%A4fte%20Mathe', 'Lehrer', 'Lehrer,Verwaltung', 'Verwaltung', undefined]) {
        const own = await viewers.resolve(anna(header));
        assert.deepEqual(await viewers.resolve(onBehalf('portal', 'anna', header)), own, String(header));
        assert.deepEqual(await viewers.resolve(onBehalf('portal@schule.local', 'Anna%40schule.local', header)), own, `${header}, by UPN`);
      }
    });

    it('refuses X-Service-User from an account not in wiki.trusted_callers with 403, without looking anyone up', async () => {
      const { directory, calls } = scriptedDirectory();
      const viewers = resolver(directory);
      for (const caller of ['anna', 'svc-indexer', 'fpadmin']) {
        const answer = await viewers.resolve(onBehalf(caller, 'anna', 'Lehrer'));
        assert.ok(!answer.ok && answer.status === 403 && answer.error === 'untrusted_caller', `${caller}: ${JSON.stringify(answer)}`);
      }
      assert.deepEqual(calls.users, []);
      assert.equal(viewers.stats.untrustedOnBehalfCalls, 3);
    });

    it('fails closed for an unknown user and says why; refuses one who is disabled, locked or expired (403 naming the state, counted)', async () => {
      const { directory, state } = scriptedDirectory();
      const viewers = resolver(directory);
      assert.deepEqual(await viewers.resolve(onBehalf('portal', 'niemand', 'Lehrer')), { ok: true, account: null, userSid: null, allowSids: [], denySids: [], shares: [], noAccess: 'user_unknown' });
      for (const accountState of ['disabled', 'locked', 'expired', 'password_expired'] as const) {
        state.annaState = accountState;
        const named = resolver(directory);
        const answer = await named.resolve(onBehalf('portal', 'anna', 'Lehrer'));
        assert.ok(!answer.ok && answer.status === 403 && answer.error === `service_user_${accountState}`, JSON.stringify(answer));
        assert.match(answer.message, /^X-Service-User: anna .*; a trusted caller may not call on behalf of it$/);
        assert.equal(named.stats.serviceUserRefusals[accountState], 1);
      }
    });

    it('refuses a member of DnsAdmins (403 service_user_admin), a group the directory knows by name only', async () => {
      const { directory, state } = scriptedDirectory();
      state.annaGroups = [...state.annaGroups, GROUPS['DnsAdmins']!];
      const viewers = resolver(directory);
      const answer = await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      assert.ok(!answer.ok && answer.status === 403 && answer.error === 'service_user_admin', JSON.stringify(answer));
      assert.equal(viewers.stats.serviceUserRefusals.admin, 1);
    });

    it('tells the configured accounts by their SIDs, whatever spelling the config or the header uses', async () => {
      const { directory } = scriptedDirectory();
      const viewers = resolver(directory, undefined, 'svc-indexer@schule.local');
      for (const name of ['svc-indexer', 'SVC-Indexer%40schule.local']) {
        const answer = await viewers.resolve(onBehalf('portal', name, 'Lehrer'));
        assert.ok(!answer.ok && answer.error === 'service_user_indexer', `${name}: ${JSON.stringify(answer)}`);
      }
      for (const name of ['portal', 'portal%40schule.local']) {
        const answer = await viewers.resolve(onBehalf('portal@schule.local', name, 'Lehrer'));
        assert.ok(!answer.ok && answer.error === 'service_user_trusted_caller', `${name}: ${JSON.stringify(answer)}`);
      }
    });

    it('resolves the configured accounts once per ldap.cache_ttl', async () => {
      const clock = { now: T0 };
      const { directory, calls } = scriptedDirectory();
      const viewers = resolver(directory, clock);
      await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      assert.deepEqual(calls.accounts.sort(), ['SCHULE\\portal', 'fpadmin', 'svc-indexer'], 'each once');
      clock.now = T0 + 300_001;
      await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      assert.equal(calls.accounts.length, 6, 'again after the TTL');
    });

    it('answers 400 service_user_required for a technical account without X-Service-User', async () => {
      const viewers = resolver(scriptedDirectory().directory);
      for (const caller of ['portal', 'svc-indexer']) {
        const answer = await viewers.resolve(onBehalf(caller, undefined, 'Lehrer'));
        assert.ok(!answer.ok && answer.status === 400 && answer.error === 'service_user_required', `${caller}: ${JSON.stringify(answer)}`);
        assert.match(answer.message, /X-Service-User is missing/);
      }
      // fpadmin is admin.user: people log in with it, so it reads the wiki as itself.
      assert.equal((await viewers.resolve(onBehalf('fpadmin', undefined, 'Lehrer'))).ok, true);
      // With the default indexer account (admin.user) the same holds for it.
      assert.equal((await resolver(scriptedDirectory().directory, undefined, 'fpadmin').resolve(onBehalf('fpadmin', undefined, 'Lehrer'))).ok, true);
    });

    it('answers 400 for a malformed X-Service-User and 503 when the directory cannot look the user up', async () => {
      const { directory, state } = scriptedDirectory();
      const viewers = resolver(directory);
      for (const header of ['anna,ben', 'anna%2Cben', '', ' ', 'EDU\\anna', 'a%00b', 'an\u00e4', 'x'.repeat(257), '@x', 'a@b@c', 'a%zz', 'a=b']) {
        const answer = await viewers.resolve(onBehalf('portal', header, 'Lehrer'));
        assert.ok(!answer.ok && answer.status === 400 && answer.error === 'bad_service_user_header', `${JSON.stringify(header)}: ${JSON.stringify(answer)}`);
      }
      await viewers.resolve(onBehalf('portal', 'niemand', 'Lehrer')); // caches the portal's login
      state.down = true;
      const down = await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      assert.ok(!down.ok && down.status === 503 && down.error === 'directory_unavailable', JSON.stringify(down));
    });

    it('reuses a looked-up user for the login TTL, then reads the token again', async () => {
      const clock = { now: T0 };
      const { directory, calls, state } = scriptedDirectory();
      const viewers = resolver(directory, clock);
      const before = await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'));
      assert.ok(sidsOf(before).includes(GROUPS['Lehrer']!));
      state.annaGroups = [GROUPS['Lehrkräfte Mathe']!, DOMAIN_USERS]; // anna leaves Lehrer
      await viewers.resolve(onBehalf('portal', 'ANNA', 'Lehrer'));
      assert.deepEqual(calls.users, ['anna'], 'served from the cache (names are case-insensitive)');
      clock.now = T0 + 60_001;
      assert.deepEqual(sidsOf(await viewers.resolve(onBehalf('portal', 'anna', 'Lehrer'))), [], 'Lehrer no longer counts');
      assert.equal(calls.users.length, 2);
    });
  });
  it('reads a ticket holder (negotiated, no password) by the SID of its PAC with the indexer account, gives the sets a login gives, and refuses an account that cannot log on now', async () => {
    const { directory, calls, state } = scriptedDirectory();
    const viewers = resolver(directory);
    const byTicket = { user: 'anna', password: '', negotiated: { sid: ANNA }, groupsHeader: 'Lehrer', serviceUserHeader: undefined, clientAddress: '127.0.0.1' };
    const answer = await viewers.resolve(byTicket);
    assert.deepEqual(answer, await resolver(scriptedDirectory().directory).resolve(anna('Lehrer')), 'the same as her password gives');
    assert.deepEqual([calls.logins, calls.users, calls.sids], [0, [], [ANNA]], 'no bind (there is no password), and no lookup by the ticket\'s name');
    assert.equal(viewers.stats.negotiatedCalls, 1);
    // The name the ticket spells is not who the caller is: a ticket of another name with anna's SID is anna.
    assert.deepEqual(await viewers.resolve({ ...byTicket, user: 'ben' }), answer);
    assert.deepEqual(calls.sids, [ANNA], 'served from the cache, keyed by the SID');
    assert.deepEqual(await viewers.resolve({ ...byTicket, negotiated: { sid: `${DOMAIN}-4242` } }), {
      ok: false, status: 401, error: 'negotiate_user_unknown', message: `the directory has no account of ${DOMAIN}-4242, whom the Kerberos ticket of anna names`,
    });
    state.annaState = 'disabled';
    assert.deepEqual(await resolver(directory).resolve(byTicket), {
      ok: false, status: 401, error: 'negotiate_user_disabled', message: 'the Kerberos ticket names anna, whose account is disabled now',
    });
    // Without `negotiated` an empty password is a bind like any other: refused.
    const { negotiated: _, ...byEmptyPassword } = byTicket;
    assert.equal((await resolver(directory).resolve(byEmptyPassword)).ok, false);
  });
});
