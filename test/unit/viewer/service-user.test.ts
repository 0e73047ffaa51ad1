// Whom a trusted caller may name in X-Service-User (CallerRoles.serviceUserRefusal), on looked-up accounts as the
// directory reports them; the same rules against real accounts of the testbed DC: integration/wiki/trusted-callers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LookedUpUser } from '../../../src/ldap/directory.js';
import { CallerRoles, parseServiceUserHeader, ServiceUserHeaderError } from '../../../src/viewer/service-user.js';

const DOMAIN = 'S-1-5-21-10-20-30';
const SCHUL_ADMINS = `${DOMAIN}-1150`;

/** The portal (trusted caller), the indexer and admin.user, by SID as caller-accounts.ts resolves them. */
function roles(mayNameAdmins = false): CallerRoles {
  return new CallerRoles({ trustedCallers: new Set([`${DOMAIN}-1201`]), indexer: `${DOMAIN}-1202`, admin: `${DOMAIN}-1203`, mayNameAdmins });
}

function user(account: string, rid: number, more: Partial<LookedUpUser> = {}): LookedUpUser {
  return { account, sid: `${DOMAIN}-${rid}`, groupSids: [`${DOMAIN}-513`], state: 'active', computer: false, notDelegated: false, adminCount: false, ...more };
}

describe('CallerRoles.serviceUserRefusal', () => {
  const admins = new Set([SCHUL_ADMINS]);
  const cases: [string, LookedUpUser, string | null][] = [
    ['an ordinary user', user('anna', 1105), null],
    ['a computer', user('WS01$', 1300, { computer: true }), 'computer'],
    ['krbtgt (by RID)', user('krbtgt', 502, { state: 'disabled' }), 'krbtgt'],
    ['an RODC krbtgt', user('krbtgt_12345', 1400), 'krbtgt'],
    ['the indexer account', user('svc-indexer', 1202), 'indexer'],
    ['the indexer account, by its SID whatever its name', user('ix', 1202), 'indexer'],
    ['a trusted caller', user('portal', 1201), 'trusted_caller'],
    ['an account named like the indexer, but another', user('svc-indexer', 1299), null],
    ['a sensitive account', user('ben', 1106, { notDelegated: true }), 'not_delegated'],
    ['a member of Protected Users', user('carla', 1107, { groupSids: [`${DOMAIN}-513`, `${DOMAIN}-525`] }), 'protected_user'],
    ['the domain Administrator', user('Administrator', 500), 'admin'],
    ['a Domain Admin', user('dora', 1108, { groupSids: [`${DOMAIN}-512`] }), 'admin'],
    ['a builtin Administrator', user('erik', 1109, { groupSids: ['S-1-5-32-544'] }), 'admin'],
    ['a Backup Operator', user('frida', 1110, { groupSids: ['S-1-5-32-551'] }), 'admin'],
    ['a Replicator', user('frida', 1110, { groupSids: ['S-1-5-32-552'] }), 'admin'],
    ['a Group Policy Creator Owner', user('frida', 1110, { groupSids: [`${DOMAIN}-520`] }), 'admin'],
    ['a Key Admin', user('frida', 1110, { groupSids: [`${DOMAIN}-526`] }), 'admin'],
    ['an Enterprise Key Admin', user('frida', 1110, { groupSids: [`${DOMAIN}-527`] }), 'admin'],
    ['a member of admin.groups', user('fpadmin', 1203, { groupSids: [SCHUL_ADMINS] }), 'admin'],
    ['an account marked adminCount, in no admin group', user('hanna', 1112, { adminCount: true }), 'admin_count'],
    ['a Domain Admin marked adminCount: the admin rule first', user('dora', 1108, { groupSids: [`${DOMAIN}-512`], adminCount: true }), 'admin'],
    ['a disabled account marked adminCount: what it is first', user('hanna', 1112, { adminCount: true, state: 'disabled' }), 'admin_count'],
    ['a disabled account', user('gerd', 1111, { state: 'disabled' }), 'disabled'],
    ['a locked-out account', user('gerd', 1111, { state: 'locked' }), 'locked'],
    ['an expired account', user('gerd', 1111, { state: 'expired' }), 'expired'],
    ['an account whose password expired', user('gerd', 1111, { state: 'password_expired' }), 'password_expired'],
    ['a disabled Domain Admin: the admin rule first', user('dora', 1108, { groupSids: [`${DOMAIN}-512`], state: 'disabled' }), 'admin'],
  ];
  for (const [what, looked, rule] of cases) {
    it(`${what}: ${rule ?? 'may be named'}`, () => assert.equal(roles().serviceUserRefusal(looked, admins), rule));
  }

  it('admits members of admin groups only where wiki.trusted_callers_may_name_admins allows it, and nothing else', () => {
    assert.equal(roles(true).serviceUserRefusal(user('dora', 1108, { groupSids: [`${DOMAIN}-512`] }), admins), null);
    assert.equal(roles(true).serviceUserRefusal(user('fpadmin', 1203, { groupSids: [SCHUL_ADMINS] }), admins), null);
    assert.equal(roles(true).serviceUserRefusal(user('hanna', 1112, { adminCount: true }), admins), null);
    assert.equal(roles(true).serviceUserRefusal(user('portal', 1201), admins), 'trusted_caller');
    assert.equal(roles(true).serviceUserRefusal(user('ben', 1106, { notDelegated: true, groupSids: [`${DOMAIN}-512`] }), admins), 'not_delegated');
  });
});

describe('parseServiceUserHeader lengths', () => {
  it('counts characters, as the login-name rules do: 200 emoji pass, 257 do not', () => {
    const emoji = (n: number) => encodeURIComponent('\u{1F600}'.repeat(n));
    assert.equal(parseServiceUserHeader(emoji(200)), '\u{1F600}'.repeat(200));
    assert.throws(() => parseServiceUserHeader(emoji(257)), ServiceUserHeaderError);
  });
});
