/**
 * The throttle on password guessing: every login the service cannot answer from what it already knows costs the
 * domain controller an LDAPS bind or an NTLM logon, so repeated failures are refused (429 with Retry-After) before
 * the directory or file server is asked.
 *
 * Two tables, both in memory, owned by one thread (the ldap-resolver actor) for every HTTP thread:
 *  - per account (`loginBudget` of src/ldap/login-name.ts, the one parser of login names, with a principal name
 *    mapped to the account holding it by login-accounts.ts: every spelling of one account — `EDU\anna`,
 *    `anna@edu.test`, `ANNA`, its explicit UPN — shares one budget): `max_failures` failed logins make the account
 *    locked for `lockout`; each failure after a lockout doubles it, up to `failure_window`. The record is forgotten
 *    `failure_window` after its last failure. A successful login clears it.
 *  - per client address (the TCP peer; IPv6 by its /64): `max_address_failures` failed logins across accounts lock
 *    the address the same way (a password spray from one place). A success takes back its own attempt only.
 *    Addresses in `auth.trusted_addresses` (a proxy every user logs in through, such as the browser-facing portal)
 *    are not counted: their users' typing errors would otherwise lock every user of the proxy out together.
 * An attempt counts as a failure from the moment it is admitted, so that parallel guesses cannot overtake the
 * count; a success clears, an outcome that says nothing (directory down) takes the attempt back.
 *
 * Credentials the asking thread already knows to be good (a live SMB session, a cached wiki login, an admin
 * session) never reach this table: a user already at work is not slowed while someone guesses their password.
 * A new login of a locked account is refused even with the right password until the lockout ends: the service
 * cannot know the password is right without asking the directory, which is what the lockout saves.
 */
import { isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';

interface LoginThrottleOptions {
  /** `auth.max_failures`: failed logins of one account that lock it (0: no account limit). */
  maxFailures: number;
  /** `auth.max_address_failures`: failed logins from one address, across accounts, that lock it (0: no limit). */
  maxAddressFailures: number;
  /** `auth.trusted_addresses`: proxies whose failures count per account only. */
  trustedAddresses?: readonly string[];
  /** `auth.lockout` in ms: the first lockout. */
  lockoutMs: number;
  /** `auth.failure_window` in ms: how long failures are remembered; the longest lockout. */
  failureWindowMs: number;
  /** Records kept per table at most (the least recently used go first). */
  maxRecords?: number;
  now?: () => number;
}

/** Who tries to log in. */
export interface LoginAttempt {
  /**
   * Whose failure budget the attempt spends: `loginBudget` of the name as sent (src/ldap/login-name.ts); where that
   * is a principal name, the guard puts the account holding it in its place before the throttle counts
   * (login-accounts.ts).
   */
  account: string;
  /** The TCP peer address of the client. */
  address: string;
}

export type LoginRefusal = { admitted: false; scope: 'account' | 'address'; retryAfterSeconds: number };
export type LoginAdmission = { admitted: true } | LoginRefusal;

/** `failed`: the directory refused the credentials; `unknown`: it could not tell (unavailable, timeout). */
export type LoginOutcome = 'succeeded' | 'failed' | 'unknown';

export interface LoginThrottleStats {
  /** Logins refused with 429 since the thread started. */
  throttledLogins: number;
  lockedAccounts: number;
  lockedAddresses: number;
}

interface FailureRecord {
  failures: number;
  lastFailureAt: number;
}

const DEFAULT_MAX_RECORDS = 100_000;

export class LoginThrottle {
  private readonly accounts: LRUCache<string, FailureRecord>;
  private readonly addresses: LRUCache<string, FailureRecord>;
  private readonly now: () => number;
  private readonly trusted: ReadonlySet<string>;
  private throttled = 0;

  constructor(private readonly options: LoginThrottleOptions) {
    this.now = options.now ?? Date.now;
    this.trusted = new Set((options.trustedAddresses ?? []).map(addressKey));
    const table = () => new LRUCache<string, FailureRecord>({
      max: options.maxRecords ?? DEFAULT_MAX_RECORDS,
      ttl: options.failureWindowMs,
      perf: { now: this.now },
      ttlResolution: 0,
    });
    this.accounts = table();
    this.addresses = table();
  }

  /** Whether the attempt may ask the directory; an admitted attempt counts as a failure until it is settled. */
  admit(attempt: LoginAttempt): LoginAdmission {
    const account = attempt.account;
    const address = this.countedAddress(attempt.address);
    const refusal = this.refusal('account', this.accounts.get(account), this.options.maxFailures) ?? this.addressRefusal(address);
    if (refusal) {
      this.throttled++;
      return refusal;
    }
    this.count(this.accounts, account, 1);
    if (address !== undefined) this.count(this.addresses, address, 1);
    return { admitted: true };
  }

  /**
   * The refusal of any attempt from `address` while it is locked, else undefined: checked before the account of a
   * login name is looked up, so that a locked address costs the directory nothing (login-guard.ts).
   */
  refuseAddress(address: string): LoginRefusal | undefined {
    const refusal = this.addressRefusal(this.countedAddress(address));
    if (refusal) this.throttled++;
    return refusal;
  }

  /** Records what came of an admitted attempt. */
  settle(attempt: LoginAttempt, outcome: LoginOutcome): void {
    if (outcome === 'failed') return;
    const account = attempt.account;
    if (outcome === 'succeeded') this.accounts.delete(account);
    else this.count(this.accounts, account, -1);
    const address = this.countedAddress(attempt.address);
    if (address !== undefined) this.count(this.addresses, address, -1);
  }

  get stats(): LoginThrottleStats {
    const locked = (table: LRUCache<string, FailureRecord>, limit: number) =>
      [...table.values()].filter((r) => this.lockedUntil(r, limit) > this.now()).length;
    return {
      throttledLogins: this.throttled,
      lockedAccounts: locked(this.accounts, this.options.maxFailures),
      lockedAddresses: locked(this.addresses, this.options.maxAddressFailures),
    };
  }

  /** The key failures from `address` count under; undefined for a trusted proxy. */
  private countedAddress(address: string): string | undefined {
    const key = addressKey(address);
    return this.trusted.has(key) ? undefined : key;
  }

  /** The refusal while the address key (countedAddress) is locked; none for a trusted proxy. */
  private addressRefusal(key: string | undefined): LoginRefusal | undefined {
    return key === undefined ? undefined : this.refusal('address', this.addresses.get(key), this.options.maxAddressFailures);
  }

  private refusal(scope: 'account' | 'address', record: FailureRecord | undefined, limit: number): LoginRefusal | undefined {
    if (record === undefined) return undefined;
    const until = this.lockedUntil(record, limit);
    const now = this.now();
    return until > now ? { admitted: false, scope, retryAfterSeconds: Math.ceil((until - now) / 1000) } : undefined;
  }

  /** The end of the record's lockout (0 below the limit): `lockout`, doubled per failure beyond the limit, at most the window. */
  private lockedUntil(record: FailureRecord, limit: number): number {
    if (limit === 0 || record.failures < limit) return 0;
    const doublings = Math.min(record.failures - limit, 30);
    return record.lastFailureAt + Math.min(this.options.lockoutMs * 2 ** doublings, this.options.failureWindowMs);
  }

  private count(table: LRUCache<string, FailureRecord>, key: string, delta: 1 | -1): void {
    const record = table.get(key, { updateAgeOnGet: false });
    if (delta === 1) {
      table.set(key, { failures: (record?.failures ?? 0) + 1, lastFailureAt: this.now() });
    } else if (record !== undefined) {
      // Taking an attempt back neither renews the record nor moves its last failure.
      record.failures = Math.max(0, record.failures - 1);
    }
  }
}

/**
 * IPv4 as it is, also when mapped into IPv6 (`::ffff:10.0.0.1`, or spelt out in hex as uWebSockets.js does);
 * IPv6 by its /64, which one client usually holds whole.
 */
export function addressKey(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [high, low] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] {
  const [head, tail] = address.split('%')[0]!.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, '').toLowerCase());
}
