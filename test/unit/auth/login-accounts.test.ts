import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginAccounts, type LoginAccountDirectory } from '../../../src/auth/login-accounts.js';
import { guardedLogin, localLoginGuard, LoginThrottledError } from '../../../src/auth/login-guard.js';
import { LoginThrottle } from '../../../src/auth/login-throttle.js';
import { DirectoryError } from '../../../src/ldap/connection.js';
import { loginBudget } from '../../../src/ldap/login-name.js';

/** lru-cache treats a start time of 0 as "never expires", so test clocks start later. */
const T0 = 1_000_000;
const TTL = 300_000;
const NEGATIVE_TTL = 30_000;

/** A directory that knows these explicit UPNs (lower-case) and counts what it is asked. */
function directory(upns: Record<string, string>) {
  const asked: string[] = [];
  let down = false;
  const lookup: LoginAccountDirectory = {
    loginAccount: async (name) => {
      asked.push(name);
      if (down) throw new DirectoryError('directory_unavailable', 'the DC does not answer');
      return upns[name] ?? null;
    },
  };
  return { lookup, asked, goDown: (value: boolean) => { down = value; } };
}

function accountsWith(lookup: LoginAccountDirectory | null, clock = { now: T0 }) {
  return new LoginAccounts(lookup, { ttlMs: TTL, negativeTtlMs: NEGATIVE_TTL, restMs: 5_000, now: () => clock.now });
}

const budgetOf = async (accounts: LoginAccounts, name: string) => (await accounts.counted({ account: loginBudget(name), address: '10.0.0.1' })).account;

describe('LoginAccounts', () => {
  it('counts an explicit UPN with another user part under its account, like every other spelling', async () => {
    const dc = directory({ 'a.mueller@schule.de': 'Anna' });
    const accounts = accountsWith(dc.lookup);
    for (const name of ['anna', 'EDU\\ANNA', 'edu.test\\anna', 'A.Mueller@SCHULE.DE', 'a.mueller@schule.de']) {
      assert.equal(await budgetOf(accounts, name), 'anna', name);
    }
    assert.deepEqual(dc.asked, ['a.mueller@schule.de'], 'a name with its account in it is not looked up; a UPN once');
  });

  it('counts a principal name nobody holds under its user part, and remembers that for the negative TTL only', async () => {
    const clock = { now: T0 };
    const dc = directory({});
    const accounts = accountsWith(dc.lookup, clock);
    assert.equal(await budgetOf(accounts, 'Ben@Elsewhere.example'), 'ben');
    assert.equal(await budgetOf(accounts, 'ben@elsewhere.example'), 'ben');
    assert.equal(dc.asked.length, 1, 'the unknown name is cached');
    clock.now += NEGATIVE_TTL + 1;
    await budgetOf(accounts, 'ben@elsewhere.example');
    assert.equal(dc.asked.length, 2, 'and asked again after the negative TTL');
  });

  it('asks the directory once per distinct name, however many attempts spell it at once', async () => {
    const dc = directory({ 'a.mueller@schule.de': 'anna' });
    const accounts = accountsWith(dc.lookup);
    const names = Array.from({ length: 1_000 }, (_, i) => (i % 2 === 0 ? 'a.mueller@schule.de' : `spray-${i % 10}@x.example`));
    await Promise.all(names.map((name) => budgetOf(accounts, name)));
    assert.equal(dc.asked.length, 6);
    assert.equal(accounts.stats.loginAccountLookups, 6);
  });

  it('without a directory, and while it does not answer, counts the user part and never fails the attempt', async () => {
    assert.equal(await budgetOf(accountsWith(null), 'a.mueller@schule.de'), 'a.mueller');
    const clock = { now: T0 };
    const dc = directory({ 'a.mueller@schule.de': 'anna' });
    const accounts = accountsWith(dc.lookup, clock);
    assert.equal(await budgetOf(accounts, 'a.mueller@schule.de'), 'anna');
    dc.goDown(true);
    assert.equal(await budgetOf(accounts, 'b.mueller@schule.de'), 'b.mueller');
    assert.equal(await budgetOf(accounts, 'other@schule.de'), 'other');
    assert.equal(dc.asked.length, 2, 'lookups rest after a failure, so logins do not wait for one timeout after another');
    assert.equal(accounts.stats.loginAccountLookupFailures, 1);
    assert.equal(await budgetOf(accounts, 'a.mueller@schule.de'), 'anna', 'what is cached still counts');
    dc.goDown(false);
    clock.now += 5_000;
    assert.equal(await budgetOf(accounts, 'b.mueller@schule.de'), 'b.mueller', 'asked again: the failure was not cached');
    assert.equal(dc.asked.length, 3);
  });
});

describe('localLoginGuard with LoginAccounts', () => {
  it('an explicit UPN and the account name share one budget, and the outcome settles the account counted', async () => {
    const throttle = new LoginThrottle({ maxFailures: 3, maxAddressFailures: 0, lockoutMs: 60_000, failureWindowMs: 600_000, now: () => T0 });
    const dc = directory({ 'a.mueller@schule.de': 'anna' });
    const guard = localLoginGuard(throttle, accountsWith(dc.lookup));
    const attempt = (name: string) => ({ account: loginBudget(name), address: '10.0.0.1' });
    const wrong = () => Promise.reject(new DirectoryError('invalid_credentials', 'wrong password'));
    const refused = (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials';

    // A success under the UPN clears the account's record, not one of the UPN's own.
    await guardedLogin(guard, attempt('EDU\\anna'), wrong, refused).catch(() => undefined);
    await guardedLogin(guard, attempt('EDU\\anna'), wrong, refused).catch(() => undefined);
    await guardedLogin(guard, attempt('a.mueller@schule.de'), async () => 'ok', refused);
    for (const name of ['EDU\\anna', 'anna@edu.test', 'a.mueller@schule.de']) {
      await assert.rejects(guardedLogin(guard, attempt(name), wrong, refused), DirectoryError, name);
    }
    for (const name of ['a.mueller@schule.de', 'ANNA']) {
      await assert.rejects(guardedLogin(guard, attempt(name), async () => 'ok', refused), LoginThrottledError, `${name}: locked, right password or not`);
    }
  });

  it('refuses a locked address before looking its login names up', async () => {
    const throttle = new LoginThrottle({ maxFailures: 0, maxAddressFailures: 2, lockoutMs: 60_000, failureWindowMs: 600_000, now: () => T0 });
    const dc = directory({});
    const guard = localLoginGuard(throttle, accountsWith(dc.lookup));
    const wrong = () => Promise.reject(new DirectoryError('invalid_credentials', 'wrong password'));
    const refused = (err: unknown) => err instanceof DirectoryError && err.kind === 'invalid_credentials';
    for (let i = 0; i < 2; i++) await assert.rejects(guardedLogin(guard, { account: loginBudget(`s${i}@x.example`), address: '10.0.0.9' }, wrong, refused), DirectoryError);
    for (let i = 2; i < 50; i++) {
      await assert.rejects(guardedLogin(guard, { account: loginBudget(`s${i}@x.example`), address: '10.0.0.9' }, wrong, refused), (err) => err instanceof LoginThrottledError && err.scope === 'address');
    }
    assert.equal(dc.asked.length, 2);
  });
});
