import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { guardedLogin, localLoginGuard, LoginThrottledError, remoteLoginGuard, type LoginGuardProtocol } from '../../../src/auth/login-guard.js';
import { LoginAccounts } from '../../../src/auth/login-accounts.js';
import { addressKey, LoginThrottle } from '../../../src/auth/login-throttle.js';
import { loginBudget } from '../../../src/ldap/login-name.js';
import { ActorUnavailableError } from '../../../src/runtime/rpc.js';

/** lru-cache treats a start time of 0 as "never expires", so test clocks start later. */
const T0 = 1_000_000;

function throttle(clock = { now: T0 }, limits: { maxFailures?: number; maxAddressFailures?: number; trustedAddresses?: string[] } = {}) {
  return new LoginThrottle({
    maxFailures: limits.maxFailures ?? 3, maxAddressFailures: limits.maxAddressFailures ?? 10, trustedAddresses: limits.trustedAddresses ?? [],
    lockoutMs: 60_000, failureWindowMs: 600_000, now: () => clock.now,
  });
}

/** An attempt with this login name, as the name alone tells its budget (a principal name is the guard's to map). */
const attempt = (user: string, address: string) => ({ account: loginBudget(user), address });

/** N failed logins of `user` from `address`. */
function fail(t: LoginThrottle, user: string, address: string, n: number): void {
  for (let i = 0; i < n; i++) {
    assert.deepEqual(t.admit(attempt(user, address)), { admitted: true }, `attempt ${i + 1}`);
    t.settle(attempt(user, address), 'failed');
  }
}

describe('LoginThrottle', () => {
  it('locks an account after max_failures, for lockout, doubling with each failure after it', () => {
    const clock = { now: T0 };
    const t = throttle(clock);
    fail(t, 'anna', '10.0.0.1', 3);
    assert.deepEqual(t.admit(attempt('anna', '10.0.0.2')), { admitted: false, scope: 'account', retryAfterSeconds: 60 });
    assert.deepEqual(t.admit(attempt('EDU\\Anna', '10.0.0.2')), { admitted: false, scope: 'account', retryAfterSeconds: 60 });
    assert.deepEqual(t.admit(attempt('ben', '10.0.0.1')), { admitted: true }, 'another user is not affected');
    clock.now += 60_000;
    fail(t, 'edu.test\\ANNA', '10.0.0.1', 1);
    assert.deepEqual(t.admit(attempt('anna', '10.0.0.1')), { admitted: false, scope: 'account', retryAfterSeconds: 120 });
    assert.equal(t.stats.throttledLogins, 3);
    assert.equal(t.stats.lockedAccounts, 1);
  });

  it('a success clears the account; an outcome that says nothing takes the attempt back', () => {
    const t = throttle();
    fail(t, 'anna', '10.0.0.1', 2);
    assert.deepEqual(t.admit(attempt('anna', '10.0.0.1')), { admitted: true });
    t.settle(attempt('anna', '10.0.0.1'), 'succeeded');
    fail(t, 'anna', '10.0.0.1', 2);
    t.admit(attempt('anna', '10.0.0.1'));
    t.settle(attempt('anna', '10.0.0.1'), 'unknown');
    assert.deepEqual(t.admit(attempt('anna', '10.0.0.1')), { admitted: true }, 'two failures, the unknown one taken back');
  });

  it('counts parallel attempts before their outcome, so they cannot overtake the limit', () => {
    const t = throttle();
    const admitted = Array.from({ length: 10 }, () => t.admit(attempt('anna', '10.0.0.1')).admitted);
    assert.deepEqual(admitted.filter(Boolean).length, 3);
  });

  it('locks an address that sprays many accounts, not the accounts elsewhere', () => {
    const t = throttle({ now: T0 }, { maxFailures: 3, maxAddressFailures: 4 });
    for (const user of ['a', 'b', 'c', 'd']) fail(t, user, '2001:db8:1:2::7', 1);
    assert.deepEqual(t.admit(attempt('e', '2001:db8:1:2:ffff::1')), { admitted: false, scope: 'address', retryAfterSeconds: 60 });
    assert.deepEqual(t.admit(attempt('e', '2001:db8:1:3::1')), { admitted: true });
  });

  it('counts failures from a trusted proxy per account only', () => {
    const t = throttle({ now: T0 }, { maxFailures: 3, maxAddressFailures: 4, trustedAddresses: ['10.0.0.9'] });
    for (const user of ['a', 'b', 'c', 'd', 'e']) fail(t, user, '::ffff:10.0.0.9', 1);
    assert.deepEqual(t.admit(attempt('f', '10.0.0.9')), { admitted: true }, 'the portal is not locked out');
    fail(t, 'a', '10.0.0.9', 2);
    assert.deepEqual(t.admit(attempt('a', '10.0.0.9')), { admitted: false, scope: 'account', retryAfterSeconds: 60 });
    for (const user of ['a', 'b', 'c', 'd']) fail(t, `x${user}`, '10.0.0.8', 1);
    assert.deepEqual(t.admit(attempt('g', '10.0.0.8')).admitted, false, 'other addresses are still counted');
  });

  it('forgets failures failure_window after the last one', () => {
    const clock = { now: T0 };
    const t = throttle(clock);
    fail(t, 'anna', '10.0.0.1', 3);
    clock.now += 600_001;
    assert.deepEqual(t.admit(attempt('anna', '10.0.0.1')), { admitted: true });
  });

  it('0 turns a limit off', () => {
    const t = throttle({ now: T0 }, { maxFailures: 0, maxAddressFailures: 0 });
    fail(t, 'anna', '10.0.0.1', 50);
  });

  it('keys IPv4 (also mapped into IPv6) as it is, IPv6 by its /64', () => {
    assert.equal(addressKey('10.1.2.3'), '10.1.2.3');
    assert.equal(addressKey('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(addressKey('0000:0000:0000:0000:0000:ffff:0a01:0203'), '10.1.2.3');
    assert.equal(addressKey('2001:db8:0:1:2:3:4:5'), '2001:db8:0:1::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  });
});

describe('guardedLogin', () => {
  it('does not call the login when refused, and records each outcome', async () => {
    const t = throttle();
    const guard = localLoginGuard(t, new LoginAccounts(null, { ttlMs: 60_000, negativeTtlMs: 30_000 }));
    const annas = attempt('anna', '10.0.0.1');
    let asked = 0;
    const wrong = () => { asked++; return Promise.reject(new Error('wrong password')); };
    for (let i = 0; i < 3; i++) await assert.rejects(guardedLogin(guard, annas, wrong, () => true), /wrong password/);
    await assert.rejects(guardedLogin(guard, annas, wrong, () => true), (err) => err instanceof LoginThrottledError && err.retryAfterSeconds === 60);
    assert.equal(asked, 3, 'the directory is not asked once the account is locked');
  });
});

describe('remoteLoginGuard', () => {
  const annas = attempt('anna', '127.0.0.1');
  const silent = pino({ level: 'silent' });
  /** A resolver whose admitLogin fails as a restarting actor does `downFor` times, then answers. */
  function restarting(downFor: number) {
    const calls = { admit: 0 };
    const resolver: LoginGuardProtocol = {
      admitLogin: async () => {
        calls.admit++;
        if (calls.admit <= downFor) throw new ActorUnavailableError('ldap-resolver', 'restarting');
        return { admitted: true, counted: annas };
      },
      settleLogin: async () => undefined,
    };
    return { resolver, calls };
  }

  it('waits for an ldap-resolver that is restarting instead of failing the login', async () => {
    const { resolver, calls } = restarting(3);
    assert.deepEqual(await remoteLoginGuard(resolver, silent).admit(annas), { admitted: true, counted: annas });
    assert.equal(calls.admit, 4);
  });

  it('fails closed (ActorUnavailableError, a 503) when the ldap-resolver does not come back', async () => {
    const { resolver, calls } = restarting(Infinity);
    await assert.rejects(remoteLoginGuard(resolver, silent).admit(annas), ActorUnavailableError);
    assert.equal(calls.admit, 6);
  });
});
