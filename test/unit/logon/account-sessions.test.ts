// The logic of account-sessions.ts with a directory that answers as the test says: which account a pooled session
// belongs to, when it is asked again, and what ends it. The directory and the pool are the testbed's in
// test/integration/webdav/accounts.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../../src/http/http-error.js';
import { AccountSessions, DirectoryUnreachableError, LogonAgainError, type AccountStanding } from '../../../src/logon/account-sessions.js';
import { SmbError, type PooledSession } from '../../../src/smb/index.js';

const MAX_AGE_MS = 60_000;
const ANNA: AccountStanding = { sid: 'S-1-5-21-1-2-3-1104', state: 'active', passwordSetAt: '134000000000000000' };

class FakeSession implements PooledSession {
  readonly key = 'dc1|445|EDU|anna|<hash of the password>|ntlm';
  loggedOn = false;
  claimedFor: string | undefined;
  retired = false;
  claim(account: string): Promise<void> {
    this.claimedFor = account;
    return Promise.resolve();
  }
  retire(): void {
    this.retired = true;
    this.loggedOn = false;
  }
  hold(): () => void {
    return () => undefined;
  }
}

/** A directory whose answer the test sets, counting the questions. */
function fixture(answer: AccountStanding | null = ANNA) {
  let clock = 1_000_000;
  const directory = { answer, unreachable: false, questions: [] as unknown[] };
  const sessions = new AccountSessions(async (query) => {
    directory.questions.push(query);
    if (directory.unreachable) throw new DirectoryUnreachableError(FALLBACK_KEY, 'LDAPS refused the connection');
    return directory.answer;
  }, MAX_AGE_MS, { 'www-authenticate': 'Basic realm="test"' }, () => clock);
  const session = new FakeSession();
  const setups: string[] = [];
  const logon = () => sessions.logon(session, 'EDU\\anna', async () => {
    setups.push(session.claimedFor ?? 'unclaimed');
    session.loggedOn = true;
  });
  return { directory, sessions, session, setups, logon, advance: (ms: number) => { clock += ms; } };
}

function isSessionEnded(err: unknown): boolean {
  return err instanceof HttpError && err.status === 401 && err.code === 'session_ended' && err.headers['www-authenticate'] !== undefined;
}

function isLogonFailure(err: unknown): boolean {
  return err instanceof SmbError && err.code === 'LOGON_FAILURE';
}

/** The key a session is counted under while the directory cannot name its account (the login's budget). */
const FALLBACK_KEY = 'name:anna';

describe('AccountSessions', () => {
  it('asks by login name before the setup, claims the session for the SID, and names the account by SID', async () => {
    const f = fixture();
    await f.logon();
    assert.deepEqual(f.directory.questions, [{ name: 'EDU\\anna' }]);
    assert.deepEqual(f.setups, [ANNA.sid], 'claimed before the setup');
    assert.equal(f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid);
  });

  it('refuses a logon as a logon failure, without the setup, when there is no such account or it may not log on', async () => {
    for (const answer of [null, { ...ANNA, state: 'disabled' }, { ...ANNA, state: 'locked' }, { ...ANNA, state: 'expired' }]) {
      const f = fixture(answer);
      await assert.rejects(f.logon(), isLogonFailure, JSON.stringify(answer));
      assert.deepEqual(f.setups, [], 'the DC is not asked');
      assert.equal(f.session.claimedFor, undefined);
    }
  });

  it('passes a fresh session at once, without asking (the request path does not wait)', async () => {
    const f = fixture();
    await f.logon();
    f.advance(MAX_AGE_MS - 1);
    assert.equal(typeof f.sessions.account(f.session, 'EDU\\anna'), 'string');
    assert.equal(f.directory.questions.length, 1);
  });

  it('asks again by SID once the check is stale, and passes the session on while the account is unchanged', async () => {
    const f = fixture();
    await f.logon();
    f.advance(MAX_AGE_MS);
    assert.equal(await f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid);
    assert.deepEqual(f.directory.questions.at(-1), { sid: ANNA.sid });
    assert.equal(f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid, 'fresh again');
    assert.equal(f.session.retired, false);
  });

  const endings: [string, AccountStanding | null][] = [
    ['deleted', null], ['disabled', { ...ANNA, state: 'disabled' }], ['locked out', { ...ANNA, state: 'locked' }],
    ['expired', { ...ANNA, state: 'expired' }], ['given a new password', { ...ANNA, passwordSetAt: '134000000099999999' }],
  ];
  for (const [what, answer] of endings) {
    it(`ends a stale session whose account was ${what}: retired, 401 session_ended`, async () => {
      const f = fixture();
      await f.logon();
      f.directory.answer = answer;
      f.advance(MAX_AGE_MS - 1);
      assert.equal(f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid, 'within session_max_age the session serves on');
      f.advance(1);
      await assert.rejects(Promise.resolve(f.sessions.account(f.session, 'EDU\\anna')), isSessionEnded);
      assert.equal(f.session.retired, true);
    });
  }

  it('lets the DC decide a logon the directory cannot answer for: keyed by the login, asked by name at the next check', async () => {
    const f = fixture();
    f.directory.unreachable = true;
    await f.logon();
    assert.deepEqual(f.setups, [FALLBACK_KEY], 'the SMB logon (which the DC checks) went on');
    assert.equal(f.sessions.account(f.session, 'EDU\\anna'), FALLBACK_KEY);
    f.directory.unreachable = false;
    f.advance(MAX_AGE_MS);
    assert.equal(await f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid);
    assert.deepEqual(f.directory.questions.at(-1), { name: 'EDU\\anna' });
    assert.equal(f.session.claimedFor, ANNA.sid, 'counted under the SID from then on');
    f.advance(MAX_AGE_MS);
    assert.equal(await f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid);
    assert.deepEqual(f.directory.questions.at(-1), { sid: ANNA.sid });
  });

  it('ends a session due for a check the directory cannot answer, so that a new logon (the DC\'s own check) replaces it', async () => {
    const f = fixture();
    await f.logon();
    f.directory.unreachable = true;
    f.advance(MAX_AGE_MS);
    await assert.rejects(Promise.resolve(f.sessions.account(f.session, 'EDU\\anna')), LogonAgainError);
    assert.equal(f.session.retired, true);
  });

  it('refuses the credentials of a session a new password ended until the password changes again', async () => {
    // The DC would take the old password for a new NTLM logon for an hour (Samba's old password allowed period).
    const f = fixture();
    await f.logon();
    const changed = { ...ANNA, passwordSetAt: '134000000099999999' };
    f.directory.answer = changed;
    f.advance(MAX_AGE_MS);
    await assert.rejects(Promise.resolve(f.sessions.account(f.session, 'EDU\\anna')), isSessionEnded);
    const again = new FakeSession();
    await assert.rejects(f.sessions.logon(again, 'EDU\\anna', async () => { again.loggedOn = true; }), isLogonFailure);
    assert.equal(again.loggedOn, false, 'the DC is not asked');
    f.directory.answer = { ...ANNA, passwordSetAt: '134000000111111111' };
    await f.sessions.logon(again, 'EDU\\anna', async () => { again.loggedOn = true; });
    assert.equal(again.loggedOn, true, 'after another change the DC decides again');
  });

  it('asks once for all the requests of a stale session meanwhile', async () => {
    const f = fixture();
    await f.logon();
    f.advance(MAX_AGE_MS);
    const answers = await Promise.all(Array.from({ length: 5 }, () => f.sessions.account(f.session, 'EDU\\anna')));
    assert.deepEqual(answers, Array(5).fill(ANNA.sid));
    assert.equal(f.directory.questions.length, 2, 'the logon, then one check');
  });

  it('claims and checks a session the pool logged on again by itself (after a drop)', async () => {
    const f = fixture();
    f.session.loggedOn = true;
    assert.equal(await f.sessions.account(f.session, 'EDU\\anna'), ANNA.sid);
    assert.equal(f.session.claimedFor, ANNA.sid);
    const gone = fixture({ ...ANNA, state: 'disabled' });
    gone.session.loggedOn = true;
    await assert.rejects(Promise.resolve(gone.sessions.account(gone.session, 'EDU\\anna')), isSessionEnded);
    assert.equal(gone.session.retired, true);
  });
});
