// ViewerResolver's decisions against a scripted directory; the real directory is used in test/integration/wiki/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DirectoryError } from '../../../src/ldap/connection.js';
import type { DirectoryUser } from '../../../src/ldap/directory.js';
import type { ViewerAnswer } from '../../../src/messages/ldap-resolver.js';
import { AUTHENTICATED_USERS_SID, EVERYONE_SID } from '../../../src/wiki/acl.js';
import { ViewerResolver } from '../../../src/wiki/viewer.js';

const DOMAIN = 'S-1-5-21-10-20-30';
const ANNA = `${DOMAIN}-1105`;
const DOMAIN_USERS = `${DOMAIN}-513`;
const GROUPS: Record<string, string> = { Lehrer: `${DOMAIN}-1101`, 'Lehrkräfte Mathe': `${DOMAIN}-1102`, Verwaltung: `${DOMAIN}-1104` };
/** A group anna is in only through Lehrer (nested); tokenGroups lists it, no header names it. */
const KOLLEGIUM = `${DOMAIN}-1103`;
/** anna's whole token: what deny entries are always matched with. */
const ANNA_TOKEN = [ANNA, GROUPS['Lehrer']!, GROUPS['Lehrkräfte Mathe']!, KOLLEGIUM, DOMAIN_USERS, EVERYONE_SID, AUTHENTICATED_USERS_SID].sort();

/** A directory where anna (password `pw`) is in Lehrer (and through it Kollegium), Lehrkräfte Mathe and Domain Users; `down` makes every call fail. */
function scriptedDirectory() {
  const calls = { logins: 0, lookups: [] as string[][] };
  const state = { down: false };
  const unavailable = () => new DirectoryError('directory_unavailable', 'connect ECONNREFUSED');
  const directory = {
    async authenticateUser(user: string, password: string): Promise<DirectoryUser> {
      calls.logins++;
      if (state.down) throw unavailable();
      if (user !== 'anna' || password !== 'pw') throw new DirectoryError('invalid_credentials', 'invalid user name or password');
      const groupSids = [GROUPS['Lehrer']!, GROUPS['Lehrkräfte Mathe']!, KOLLEGIUM, DOMAIN_USERS];
      return { dn: 'CN=anna', account: 'anna', sid: ANNA, groups: [], groupSids };
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

function resolver(directory: ReturnType<typeof scriptedDirectory>['directory'] | null, clock = { now: T0 }) {
  return new ViewerResolver({
    directory,
    visibleShares: (groups) => (groups.includes('Lehrkräfte Mathe') ? ['schule', 'mathe'] : ['schule']),
    guard: { admit: async () => ({ admitted: true }), settle: () => undefined },
    loginTtlMs: 60_000,
    groupTtlMs: 300_000,
    negativeGroupTtlMs: 30_000,
    outageCooldownMs: 5_000,
    now: () => clock.now,
  });
}

const anna = (groupsHeader: string | undefined, password = 'pw') => ({ user: 'anna', password, groupsHeader, clientAddress: '127.0.0.1' });

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
      assert.deepEqual({ ...answer, denySids: denySidsOf(answer) }, { ok: true, userSid: ANNA, allowSids: [], denySids: ANNA_TOKEN, shares: [] }, String(header));
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
    assert.deepEqual(viewers.stats, { logins: 2, cachedLogins: 1, rejectedLogins: 1, directoryErrors: 0 });
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
    assert.deepEqual(await resolver(null).resolve(anna('Lehrer')), { ok: true, userSid: null, allowSids: [], denySids: [], shares: [] });
  });
});
