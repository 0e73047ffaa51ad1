// accountState: whether the directory would let an account log on, from the attributes a lookup reads; adminCountSet:
// whether the directory marks the account as a protected group's member.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from 'ldapts';
import { accountState, adminCountSet } from '../../../src/ldap/directory.js';

const NOW = Date.UTC(2026, 0, 15);
/** `accountExpires` for a moment `ms` since 1970 (100 ns ticks since 1601). */
const filetime = (ms: number) => String(BigInt(ms) * 10_000n + 116_444_736_000_000_000n);
const entry = (attributes: Record<string, string>): Entry => ({ dn: 'CN=anna', ...attributes });

test('an enabled, unlocked account that never expires is active', () => {
  for (const expires of ['0', '9223372036854775807', filetime(NOW + 60_000)]) {
    assert.equal(accountState(entry({ userAccountControl: '512', 'msDS-User-Account-Control-Computed': '0', accountExpires: expires }), NOW), 'active', expires);
  }
  assert.equal(accountState(entry({ userAccountControl: '512' }), NOW), 'active', 'absent attributes block nothing');
});

test('disabled, locked, expired and password-expired accounts say so (disabled first)', () => {
  assert.equal(accountState(entry({ userAccountControl: '514', 'msDS-User-Account-Control-Computed': '16' }), NOW), 'disabled');
  assert.equal(accountState(entry({ userAccountControl: '512', 'msDS-User-Account-Control-Computed': '16' }), NOW), 'locked');
  assert.equal(accountState(entry({ userAccountControl: '512', accountExpires: filetime(NOW - 1) }), NOW), 'expired');
  assert.equal(accountState(entry({ userAccountControl: '512', 'msDS-User-Account-Control-Computed': String(0x800000) }), NOW), 'password_expired');
});

test('adminCount counts as set for any value but 0, as AD writes 1 and an odd value is no reason to trust the account', () => {
  for (const value of ['1', ' 1', '2', 'x']) assert.equal(adminCountSet(entry({ adminCount: value })), true, value);
  assert.equal(adminCountSet(entry({ adminCount: '0' })), false);
  assert.equal(adminCountSet(entry({ AdminCount: '1' })), true, 'attribute names are case-insensitive');
  assert.equal(adminCountSet(entry({})), false, 'absent');
});
