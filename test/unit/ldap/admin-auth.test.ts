import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdminAuthenticator, AdminSessionCache } from '../../../src/auth/admin.js';
import { authorizedOrThrow } from '../../../actors/http-front/routes/api-calls.js';
import { HttpError } from '../../../src/http/http-error.js';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { parseLoginName } from '../../../src/ldap/login-name.js';
import type { DirectoryUser, UserAuthenticator } from '../../../src/ldap/directory.js';

const PASSWORDS: Record<string, string> = { fpadmin: 'right', anna: 'anna-pw', nested: 'n' };
const GROUPS: Record<string, string[]> = { fpadmin: ['Domain Users', 'Schul-Admins'], anna: ['Domain Users', 'Lehrer'], nested: ['schul-admins'] };

/** A directory whose availability the test switches; it counts the questions it was asked. */
function fakeDirectory() {
  const state = { up: true, calls: 0 };
  const directory: UserAuthenticator = {
    loginName: (user) => parseLoginName(user, { realm: 'edu.test', domain: 'EDU' }),
    async authenticateUser(user: string, password: string): Promise<DirectoryUser> {
      state.calls++;
      if (!state.up) throw new DirectoryError('directory_unavailable', 'directory service unavailable: ECONNREFUSED');
      if (PASSWORDS[user] !== password) throw new DirectoryError('invalid_credentials', 'invalid user name or password');
      return { dn: `CN=${user},DC=edu,DC=test`, account: user, sid: 'S-1-5-21-1-2-3-1100', groups: GROUPS[user]!, groupSids: [] };
    },
  };
  return { directory, state };
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('AdminAuthenticator', () => {
  it('accepts a member of an admin group (names compared case-insensitively)', async () => {
    const { directory } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    const result = await auth.authenticate('fpadmin', 'right');
    assert.ok(result.ok);
    assert.deepEqual(result.admin.adminGroups, ['Schul-Admins']);
    assert.equal(result.fromSession, false);
    assert.ok((await auth.authenticate('nested', 'n')).ok);
  });

  it('401 for a wrong password, 403 for a valid non-admin', async () => {
    const { directory } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    assert.deepEqual(await auth.authenticate('fpadmin', 'wrong'), {
      ok: false,
      status: 401,
      error: 'invalid_credentials',
      message: 'invalid user name or password',
    });
    const forbidden = await auth.authenticate('anna', 'anna-pw');
    assert.equal(forbidden.ok, false);
    assert.equal(forbidden.ok ? 0 : forbidden.status, 403);
  });

  it('alsoAdmits lets one non-admin in for one request, without a session that would open the next', async () => {
    const { directory, state } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    const own = await auth.authenticate('anna', 'anna-pw', '127.0.0.1', (account) => account === 'anna');
    assert.ok(own.ok);
    assert.equal(own.admin.user, 'anna');
    assert.deepEqual(own.admin.adminGroups, []);
    const other = await auth.authenticate('anna', 'anna-pw', '127.0.0.1', (account) => account === 'bob');
    assert.equal(other.ok ? 0 : other.status, 403, 'the earlier admission is no session');
    assert.equal(state.calls, 2);
  });

  it('keeps a login as a session, so an outage does not lock out an admin already at work', async () => {
    const { directory, state } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    assert.ok((await auth.authenticate('fpadmin', 'right')).ok);
    state.up = false;
    const again = await auth.authenticate('fpadmin', 'right');
    assert.ok(again.ok);
    assert.equal(again.fromSession, true);
    assert.equal(state.calls, 1, 'the session answers without asking the directory');
  });

  it('a new login during an outage is directory_unavailable (503), also with a wrong password for a cached user', async () => {
    const { directory, state } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    await auth.authenticate('fpadmin', 'right');
    state.up = false;
    for (const [user, password] of [['nested', 'n'], ['fpadmin', 'other']] as const) {
      const result = await auth.authenticate(user, password);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.status, 503);
        assert.equal(result.error, 'directory_unavailable');
        assert.match(result.message, /directory service \(LDAP\) is unavailable/);
      }
    }
  });

  it('sessions expire after session_ttl and are then checked again', async () => {
    let now = 1_700_000_000_000; // lru-cache treats a start time of 0 as "no TTL"
    const { directory, state } = fakeDirectory();
    const sessions = new AdminSessionCache({ ttlMs: 30 * 60 * 1000, now: () => now });
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] }, sessions);
    await auth.authenticate('fpadmin', 'right');
    now += 30 * 60 * 1000 - 1;
    assert.equal((await auth.authenticate('fpadmin', 'right')).ok, true);
    assert.equal(state.calls, 1);
    now += 2;
    state.up = false;
    const expired = await auth.authenticate('fpadmin', 'right');
    assert.equal(expired.ok ? 0 : expired.status, 503);
  });

  it('does not cache failures', async () => {
    const { directory, state } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    await auth.authenticate('anna', 'anna-pw');
    await auth.authenticate('anna', 'anna-pw');
    assert.equal(state.calls, 2);
  });

  it('keys sessions by a keyed hash, never holding the password', () => {
    const sessions = new AdminSessionCache();
    const admin = { user: 'fpadmin', dn: 'CN=fpadmin', sid: 'S-1-5-21-1', adminGroups: ['Schul-Admins'] };
    sessions.set('fpadmin', 'the-password', admin);
    assert.equal(sessions.get('fpadmin', 'the-password'), admin);
    assert.equal(sessions.get('fpadmin:the', 'password'), undefined);
    const held = JSON.stringify([...(sessions as unknown as { sessions: Map<string, unknown> }).sessions.entries()]);
    assert.ok(!held.includes('the-password'));
  });

  it('authenticateHeader maps header problems to 401 / 400', async () => {
    const { directory } = fakeDirectory();
    const auth = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    assert.ok((await auth.authenticateHeader(basic('fpadmin', 'right'))).ok);
    const missing = await auth.authenticateHeader(undefined);
    assert.equal(missing.ok ? 0 : missing.status, 401);
    const malformed = await auth.authenticateHeader('Basic %%%%');
    assert.equal(malformed.ok ? 0 : malformed.status, 400);
  });

  it('lets named service accounts in besides the group members, when configured', async () => {
    const { directory } = fakeDirectory();
    const admins = new AdminAuthenticator(directory, { groups: ['Schul-Admins'] });
    const readers = new AdminAuthenticator(directory, { groups: ['Schul-Admins'], accounts: ['ANNA'] });
    const asAdmin = await admins.authenticate('anna', 'anna-pw');
    assert.equal(asAdmin.ok ? 0 : asAdmin.status, 403);
    assert.doesNotMatch(asAdmin.ok ? '' : asAdmin.message, /service account/);
    const asReader = await readers.authenticate('anna', 'anna-pw');
    assert.ok(asReader.ok);
    assert.deepEqual(asReader.admin.adminGroups, []);
    assert.ok((await readers.authenticate('fpadmin', 'right')).ok);
    const wrong = await readers.authenticate('anna', 'nope');
    assert.equal(wrong.ok ? 0 : wrong.status, 401);
  });

  it('authorizedOrThrow: 401 carries the given Basic challenge, 503 a Retry-After, others no extra header', () => {
    const thrown = (status: 400 | 401 | 403 | 503): HttpError => {
      try {
        authorizedOrThrow({ ok: false, status, error: 'forbidden', message: 'm' }, 'Basic realm="r"');
      } catch (err) {
        assert.ok(err instanceof HttpError);
        assert.equal(err.status, status);
        return err;
      }
      return assert.fail('expected an HttpError');
    };
    assert.deepEqual(thrown(401).headers, { 'www-authenticate': 'Basic realm="r"' });
    assert.deepEqual(thrown(503).headers, { 'retry-after': '5' });
    assert.deepEqual(thrown(403).headers, {});
    assert.deepEqual(thrown(400).headers, {});
    const admin = { user: 'u', dn: 'd', sid: 's', adminGroups: [] };
    assert.equal(authorizedOrThrow({ ok: true, admin, fromSession: false }, 'Basic realm="r"'), admin);
  });

  it('refuses an empty admin group list', () => {
    assert.throws(() => new AdminAuthenticator(fakeDirectory().directory, { groups: [] }), /admin.groups/);
  });
});
