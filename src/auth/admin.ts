import { credentialKeys } from '../common/credential-key.js';
import { LRUCache } from 'lru-cache';
import { DirectoryError, isInvalidCredentials } from '../ldap/connection.js';
import { boundLoginBudget } from '../ldap/login-name.js';
import type { DirectoryUser, UserAuthenticator } from '../ldap/directory.js';
import { ActorUnavailableError } from '../runtime/rpc.js';
import { parseBasicAuth } from './basic.js';
import { guardedLogin, LoginThrottledError, THROTTLE_UNAVAILABLE_MESSAGE, throttledAnswer, type LoginGuard, type ThrottledAnswer } from './login-guard.js';

interface AdminAuthOptions {
  /** `admin.groups`: membership of any of them (nested included) makes a global admin. */
  readonly groups: readonly string[];
  /**
   * Accounts (sAMAccountName, case-insensitive) let in besides the group members, for APIs that
   * calling services use with their own service account. Empty for the global-admin APIs.
   */
  readonly accounts?: readonly string[];
}

/** A user whose password the directory accepted and whom the rules of the authenticator let in. */
export interface AuthorizedUser {
  readonly user: string;
  readonly dn: string;
  readonly sid: string;
  /** The configured groups the user is a member of (empty for an account let in by name). */
  readonly adminGroups: string[];
}

export type AdminAuthResult =
  | { readonly ok: true; readonly admin: AuthorizedUser; readonly fromSession: boolean }
  | {
      readonly ok: false;
      readonly status: 400 | 401 | 403 | 503;
      readonly error: 'bad_credentials_format' | 'invalid_credentials' | 'forbidden' | 'directory_unavailable';
      readonly message: string;
    }
  | ThrottledAnswer;

interface AdminSessionCacheOptions {
  /** `admin.session_ttl` in ms (default 30 min), counted from the login, not extended by use. */
  readonly ttlMs?: number;
  readonly maxSessions?: number;
  /** Clock for expiry; injectable for tests. */
  readonly now?: () => number;
}

const DEFAULT_SESSION_TTL_MS = 30 * 60 * 1000;

/**
 * Successful admin logins, keyed by an HMAC of user and password under a per-process random
 * key: the plain password is never stored, and the key cannot be brute-forced offline from the
 * cache alone. Can be shared by several authenticators.
 */
export class AdminSessionCache {
  private readonly key = credentialKeys();
  private readonly sessions: LRUCache<string, AuthorizedUser>;

  constructor(options: AdminSessionCacheOptions = {}) {
    const now = options.now ?? Date.now;
    this.sessions = new LRUCache<string, AuthorizedUser>({
      max: options.maxSessions ?? 1000,
      ttl: options.ttlMs ?? DEFAULT_SESSION_TTL_MS,
      perf: { now },
      ttlResolution: 0, // always ask the clock, so an injected clock takes effect at once
    });
  }

  get(user: string, password: string): AuthorizedUser | undefined {
    return this.sessions.get(this.key(user, password));
  }

  set(user: string, password: string, admin: AuthorizedUser): void {
    this.sessions.set(this.key(user, password), admin);
  }
}

/**
 * Authentication of global admins for the admin APIs: a simple bind as the user proves the
 * password, membership of one of `admin.groups` (transitive, via tokenGroups) makes an admin;
 * `accounts` may let named service accounts in as well.
 * A successful login counts as a session for `session_ttl`; within it the directory is not
 * asked again, so an LDAP outage does not lock out an admin already at work. A new login during
 * an outage is `directory_unavailable` (503); wrong password 401; a valid non-admin 403.
 */
export class AdminAuthenticator {
  private readonly adminGroups: Map<string, string>;
  private readonly accounts: Set<string>;
  private readonly forbidden: string;

  constructor(
    private readonly directory: UserAuthenticator,
    options: AdminAuthOptions,
    private readonly sessions: AdminSessionCache = new AdminSessionCache(),
    /** The login throttle, asked before each bind (not within a session); none: no throttle. */
    private readonly guard?: LoginGuard,
  ) {
    if (options.groups.length === 0) throw new Error('admin.groups must name at least one group');
    this.adminGroups = new Map(options.groups.map((g) => [g.toLowerCase(), g]));
    this.accounts = new Set((options.accounts ?? []).map((a) => a.toLowerCase()));
    this.forbidden = `the user is not a member of an admin group (${options.groups.join(', ')})${
      this.accounts.size > 0 ? ' nor an allowed service account' : ''
    }`;
  }

  /**
   * Authenticates the `Authorization` header of a request from `clientAddress` (the TCP peer). `alsoAdmits` may
   * let in a user who is neither admin nor allowed account for this one request (by sAMAccountName); such a login
   * is not kept as a session, so that it cannot open the next request.
   */
  authenticateHeader(authorization: string | undefined, clientAddress = '', alsoAdmits?: (account: string) => boolean): Promise<AdminAuthResult> {
    const credentials = parseBasicAuth(authorization);
    if (!credentials.ok) {
      const status = credentials.error === 'malformed' ? 400 : 401;
      const error = credentials.error === 'malformed' ? 'bad_credentials_format' : 'invalid_credentials';
      return Promise.resolve({ ok: false, status, error, message: credentials.message });
    }
    return this.authenticate(credentials.user, credentials.password, clientAddress, alsoAdmits);
  }

  async authenticate(user: string, password: string, clientAddress = '', alsoAdmits?: (account: string) => boolean): Promise<AdminAuthResult> {
    const session = this.sessions.get(user, password);
    if (session !== undefined) return { ok: true, admin: session, fromSession: true };

    let directoryUser: DirectoryUser;
    try {
      const bind = () => this.directory.authenticateUser(user, password);
      const attempt = { account: boundLoginBudget(this.directory.loginName(user)), address: clientAddress };
      directoryUser = this.guard ? await guardedLogin(this.guard, attempt, bind, isInvalidCredentials) : await bind();
    } catch (err) {
      if (err instanceof LoginThrottledError) return throttledAnswer(err);
      if (err instanceof ActorUnavailableError) return { ok: false, status: 503, error: 'directory_unavailable', message: THROTTLE_UNAVAILABLE_MESSAGE };
      if (!(err instanceof DirectoryError)) throw err;
      return err.kind === 'invalid_credentials'
        ? { ok: false, status: 401, error: 'invalid_credentials', message: 'invalid user name or password' }
        : {
            ok: false,
            status: 503,
            error: 'directory_unavailable',
            message: 'the directory service (LDAP) is unavailable, so a new login cannot be checked; try again later',
          };
    }
    const adminGroups = directoryUser.groups.flatMap((g) => this.adminGroups.get(g.toLowerCase()) ?? []);
    const admin: AuthorizedUser = { user: directoryUser.account, dn: directoryUser.dn, sid: directoryUser.sid, adminGroups };
    if (adminGroups.length === 0 && !this.accounts.has(directoryUser.account.toLowerCase())) {
      if (alsoAdmits?.(directoryUser.account) === true) return { ok: true, admin, fromSession: false };
      return { ok: false, status: 403, error: 'forbidden', message: this.forbidden };
    }
    this.sessions.set(user, password, admin);
    return { ok: true, admin, fromSession: false };
  }
}
