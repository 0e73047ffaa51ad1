/**
 * Who a wiki caller is, as the search filter needs it: the SID set matched with `acl_allow`, the SID set matched
 * with `acl_deny`, and the shares whose wiki the caller may see. Runs in the ldap-resolver actor, off the request
 * thread.
 *
 * The header may narrow what allows, never what denies: a page is shown when one of its allow entries names a SID
 * of the (narrowed) allow set and none of its deny entries names a SID of the user's whole token, as Windows
 * applies a deny entry to every SID in the token.
 *
 * Steps (fail-closed: whenever something is missing the allow set is empty and every search finds nothing):
 *  1. `X-Service-Groups` is parsed (principal.ts; a malformed header is a 400).
 *  2. The basic credentials are verified by an LDAPS bind as the user (Directory.authenticateUser), which also
 *     yields the user's SID and `tokenGroups` (transitive membership). Successful logins are cached for a short
 *     time under an HMAC of user name and password, never under the password itself. A client the front
 *     authenticated by its Kerberos ticket (`negotiated`) is read with the indexer account instead (the KDC already
 *     checked the secret), found by the SID of the ticket's PAC (not by the name in the ticket), and refused when
 *     the directory no longer lets that account log on.
 *     With `X-Service-User` (service-user.ts) the credentials are a trusted caller's (else 403): the named user's
 *     SID, `tokenGroups` and account state are then read with the indexer account (Directory.lookupUser), cached
 *     as long as a login, and the steps below use that user's token, so the sets are the ones the user's own
 *     login gets. A name the directory does not know sees nothing (`noAccess` says so); an account it would not
 *     let log on is refused (403) like the others no trusted caller may name. A technical account calling without
 *     `X-Service-User` gets 400 (service-user.ts says which accounts; caller-accounts.ts resolves them to SIDs).
 *  3. The header's group names are resolved to SIDs (cached; unknown names for a shorter time). During a
 *     directory outage cached names keep resolving and uncached ones resolve to nothing.
 *  4. Identity decision: the token from the authenticated bind is authoritative. A header group counts only when
 *     its SID is in the user's `tokenGroups` — the header may narrow the user's groups, never widen them. When at
 *     least one header group counts, the user's `Domain Users` membership (the primary group, which AD lists in
 *     `tokenGroups` but which group lists sent by other systems usually omit) is added as well, because NT ACLs
 *     grant by it (the testbed's share root does) and SMB itself would grant the user access through it.
 *  5. Allow set = user SID + counted group SIDs (+ Domain Users) + Everyone + Authenticated Users (userSidSet);
 *     deny set = user SID + every `tokenGroups` SID + Everyone + Authenticated Users (tokenSidSet), not narrowed;
 *     shares = configured shares with an active wiki whose access groups (if any) include a counted group.
 * Without `ldap.base_dn` nothing can be resolved: the answer is the empty sets, never an error.
 */
import { credentialKeys } from '../common/credential-key.js';
import { LRUCache } from 'lru-cache';
import { DirectoryError, isInvalidCredentials } from '../ldap/connection.js';
import { boundLoginBudget } from '../ldap/login-name.js';
import type { LookedUpUser, UserAuthenticator, UserLookup } from '../ldap/directory.js';
import { guardedLogin, LoginThrottledError, throttledAnswer, type LoginGuard, type ThrottledAnswer } from '../auth/login-guard.js';
import { CachedGroupSidResolver, type GroupSidResolver } from '../ldap/group-sid-cache.js';
import { domainUsersSid, GroupsHeaderError, parseServiceGroupsHeader, tokenSidSet, userSidSet } from './principal.js';
import { CallerAccounts, type CallerConfig } from './caller-accounts.js';
import {
  delegationBarrier, parseServiceUserHeader, SERVICE_USER_RULES, ServiceUserHeaderError, serviceUserRefusalMessage,
  type CallerRoles, type DelegationBarrier, type ServiceUserRule,
} from './service-user.js';

/**
 * A wiki request's identity as it arrived: basic credentials, or the client of a Kerberos ticket the front accepted
 * (HTTP Negotiate), and the raw `X-Service-Groups` and `X-Service-User` headers.
 */
export interface ViewerQuery {
  user: string;
  /** The Basic password; '' with `negotiated`. */
  password: string;
  /**
   * Set by the front only after it checked a Kerberos ticket of `user` (the ticket's client name, for messages) and
   * its PAC, whose `sid` is the account: there is no password to bind with, so the user is read with the indexer
   * account by that SID, as a user a trusted caller names is read by name.
   */
  negotiated?: { sid: string };
  /** The header value; undefined when the request had none. */
  groupsHeader: string | undefined;
  /** The user a trusted caller calls on behalf of (service-user.ts); undefined when the request had none. */
  serviceUserHeader: string | undefined;
  /** The TCP peer address of the client (for the login throttle). */
  clientAddress: string;
}

/**
 * Why a user named in `X-Service-User` sees nothing: the directory knows no such user. (An account it would not let
 * log on is a 403, service-user.ts.)
 */
export type NoAccessReason = 'user_unknown';

export type ViewerAnswer =
  | {
      ok: true;
      /**
       * Whose token the sets are: the caller's sAMAccountName, or that of the user a trusted caller named (WebDAV
       * reaches SMB as that account by delegation); null when no one could be looked up (no `ldap.base_dn`).
       */
      account: string | null;
      /** The authenticated user's SID; null when it could not be looked up (no `ldap.base_dn`). */
      userSid: string | null;
      /** What `acl_allow` is matched with: narrowed by the header; empty = the caller sees nothing. */
      allowSids: string[];
      /** What `acl_deny` is matched with: the user's whole token, whatever the header says. */
      denySids: string[];
      /** Configured shares whose wiki this caller may see (active, access groups met). */
      shares: string[];
      /** Set when the named user sees nothing because the directory has no such user (the sets are then empty). */
      noAccess?: NoAccessReason;
      /**
       * Set for a caller who came with a Kerberos ticket (`negotiated`) whose account the directory forbids to
       * delegate for: WebDAV cannot reach SMB as them by S4U2Proxy (the wiki needs no delegation).
       */
      notDelegable?: DelegationBarrier;
    }
  | { ok: false; status: 400 | 401 | 403 | 503; error: string; message: string }
  /** The login throttle refused to ask the directory. */
  | ThrottledAnswer;

/**
 * An answer and until when (ms since the epoch) the same query gets it again while the wiki visibility stays as it
 * is: the earliest expiry of the cached login, named user and group names it was made from. Without `reusableUntil`
 * a part was not cached (a directory outage), there is no directory, or it is a refusal: ask again next time.
 */
export interface ReusableViewerAnswer {
  answer: ViewerAnswer;
  reusableUntil?: number;
}

/** A verified login, or a user a trusted caller named, as far as the wiki needs it. */
interface Identity {
  /** sAMAccountName. */
  account: string;
  sid: string;
  tokenGroupSids: ReadonlySet<string>;
  /** When the cache entry this identity came from expires (ms since the epoch). */
  cachedUntil: number;
  /** Read for ticket holders only (see ViewerAnswer). */
  notDelegable?: DelegationBarrier;
}

type Refusal = Extract<ViewerAnswer, { ok: false }>;

/** The answer for a caller who sees nothing: empty sets, never an error; `noAccess` when the account is why. */
function seesNothing(noAccess?: NoAccessReason): ViewerAnswer {
  return { ok: true, account: null, userSid: null, allowSids: [], denySids: [], shares: [], ...(noAccess === undefined ? {} : { noAccess }) };
}

const DIRECTORY_UNAVAILABLE: Refusal = {
  ok: false,
  status: 503,
  error: 'directory_unavailable',
  message: 'the directory service (LDAP) is unavailable, so the credentials cannot be checked; try again later',
};

interface ViewerResolverOptions {
  /** The directory; null when the wiki cannot resolve anyone (no `ldap.base_dn`): every answer is then empty. */
  directory: (UserAuthenticator & UserLookup & GroupSidResolver) | null;
  /** Which accounts may name a user in `X-Service-User`, and which must (resolved to SIDs, caller-accounts.ts). */
  callers: CallerConfig;
  /** The shares a caller in these (counted) groups may see; see WikiVisibilitySettings.visibleShares. */
  visibleShares(groupNames: readonly string[]): string[];
  /** The login throttle, asked before each bind (not for a cached login). */
  guard: LoginGuard;
  /** How long a verified login, and a user looked up for a trusted caller, is reused without asking the directory. */
  loginTtlMs: number;
  /** `ldap.cache_ttl`: resolved group names. */
  groupTtlMs: number;
  /** `ldap.negative_cache_ttl`: unknown group names. */
  negativeGroupTtlMs: number;
  /** After a failed directory call, uncached group names fail at once for this long instead of waiting on timeouts. */
  outageCooldownMs?: number;
  now?: () => number;
}

export interface ViewerStats {
  logins: number;
  cachedLogins: number;
  rejectedLogins: number;
  directoryErrors: number;
  /** Calls of clients authenticated by a Kerberos ticket (HTTP Negotiate). */
  negotiatedCalls: number;
  /** Calls of trusted callers on behalf of a user. */
  onBehalfCalls: number;
  /** Calls with `X-Service-User` from an account not in `wiki.trusted_callers` (answered 403). */
  untrustedOnBehalfCalls: number;
  /** Calls of trusted callers naming an account they may not call on behalf of (403), by rule. */
  serviceUserRefusals: Record<ServiceUserRule, number>;
}

const DEFAULT_OUTAGE_COOLDOWN_MS = 5_000;

export class ViewerResolver {
  private readonly credentialKey = credentialKeys();
  private readonly logins: LRUCache<string, Identity>;
  /** Binds under way, by the same key as `logins`: concurrent calls with the same credentials share one. */
  private readonly loginsUnderWay = new Map<string, Promise<Identity>>();
  /** Users named by trusted callers, by lower-cased name; `{ none: true }`: the directory has no such user. */
  private readonly namedUsers: LRUCache<string, LookedUpUser | { none: true }>;
  /** Holders of Kerberos tickets, by the SID of the ticket's PAC; `{ none: true }` as in `namedUsers`. */
  private readonly ticketHolders: LRUCache<string, LookedUpUser | { none: true }>;
  private readonly groups: CachedGroupSidResolver | null;
  private readonly callers: CallerAccounts | null;
  private readonly now: () => number;
  private readonly cooldownMs: number;
  private directoryDownUntil = 0;
  private readonly counters: ViewerStats = {
    logins: 0, cachedLogins: 0, rejectedLogins: 0, directoryErrors: 0, negotiatedCalls: 0, onBehalfCalls: 0, untrustedOnBehalfCalls: 0,
    serviceUserRefusals: Object.fromEntries(SERVICE_USER_RULES.map((rule) => [rule, 0])) as Record<ServiceUserRule, number>,
  };

  constructor(private readonly options: ViewerResolverOptions) {
    this.now = options.now ?? Date.now;
    this.cooldownMs = options.outageCooldownMs ?? DEFAULT_OUTAGE_COOLDOWN_MS;
    this.logins = new LRUCache({ max: 10_000, ttl: options.loginTtlMs, perf: { now: this.now }, ttlResolution: 0 });
    this.namedUsers = new LRUCache({ max: 10_000, ttl: options.loginTtlMs, perf: { now: this.now }, ttlResolution: 0 });
    this.ticketHolders = new LRUCache({ max: 10_000, ttl: options.loginTtlMs, perf: { now: this.now }, ttlResolution: 0 });
    const directory = options.directory;
    this.groups = directory === null ? null : new CachedGroupSidResolver(
      { resolveGroupSids: (names) => this.askDirectory(() => directory.resolveGroupSids(names)) },
      { ttlMs: options.groupTtlMs, negativeTtlMs: options.negativeGroupTtlMs, now: this.now },
    );
    this.callers = directory === null ? null
      : new CallerAccounts(options.callers, (name) => this.askDirectory(() => directory.lookupUser(name)), options.groupTtlMs, this.now);
  }

  get stats(): Readonly<ViewerStats> {
    return { ...this.counters, serviceUserRefusals: { ...this.counters.serviceUserRefusals } };
  }

  async resolve(query: ViewerQuery): Promise<ViewerAnswer> {
    return (await this.resolveReusable(query)).answer;
  }

  /** The answer, and until when the same query gets it again while the wiki visibility stays (see ReusableViewerAnswer). */
  async resolveReusable(query: ViewerQuery): Promise<ReusableViewerAnswer> {
    let names: string[];
    let serviceUser: string | undefined;
    try {
      names = parseServiceGroupsHeader(query.groupsHeader);
      serviceUser = parseServiceUserHeader(query.serviceUserHeader);
    } catch (error) {
      if (error instanceof GroupsHeaderError) return { answer: { ok: false, status: 400, error: 'bad_groups_header', message: error.message } };
      if (error instanceof ServiceUserHeaderError) return { answer: { ok: false, status: 400, error: 'bad_service_user_header', message: error.message } };
      throw error;
    }
    if (this.options.directory === null || this.groups === null || this.callers === null) return { answer: seesNothing() };

    let caller: Identity;
    try {
      const holder = query.negotiated
        ? await this.ticketHolder(this.options.directory, query.negotiated.sid, query.user)
        : await this.login(this.options.directory, query);
      if ('ok' in holder) return { answer: holder };
      caller = holder;
    } catch (error) {
      if (error instanceof LoginThrottledError) return { answer: throttledAnswer(error) };
      if (!(error instanceof DirectoryError)) throw error;
      if (error.kind === 'invalid_credentials') {
        this.counters.rejectedLogins++;
        return { answer: { ok: false, status: 401, error: 'invalid_credentials', message: 'invalid user name or password' } };
      }
      return { answer: DIRECTORY_UNAVAILABLE };
    }
    const subject = await this.subjectOf(this.options.directory, this.callers, caller, serviceUser);
    if ('ok' in subject) return { answer: subject };
    if ('noAccess' in subject) return this.reusable(seesNothing(subject.noAccess), caller.cachedUntil, subject.cachedUntil);
    const identity = subject;

    const resolved = await this.resolveGroups(this.groups, names);
    const counted = [...resolved].filter(([, sid]) => identity.tokenGroupSids.has(sid));
    const groupSids = counted.map(([, sid]) => sid);
    const domainUsers = domainUsersSid(identity.sid);
    if (groupSids.length > 0 && domainUsers !== null && identity.tokenGroupSids.has(domainUsers)) groupSids.push(domainUsers);
    const allowSids = userSidSet({ userSid: identity.sid, groupSids });
    const denySids = tokenSidSet(identity.sid, identity.tokenGroupSids);
    const shares = allowSids.length === 0 ? [] : this.options.visibleShares(counted.map(([name]) => name));
    const answer: ViewerAnswer = {
      ok: true, account: identity.account, userSid: identity.sid, allowSids, denySids, shares,
      ...(identity.notDelegable === undefined ? {} : { notDelegable: identity.notDelegable }),
    };
    return this.reusable(answer, caller.cachedUntil, identity.cachedUntil, this.groups.cachedUntil(names));
  }

  /** An answer made from cache entries expiring at these times (0: one was not cached). */
  private reusable(answer: ViewerAnswer, ...expiries: number[]): ReusableViewerAnswer {
    const until = Math.min(...expiries);
    return until > this.now() ? { answer, reusableUntil: until } : { answer };
  }


  /**
   * Whose token the call is filtered with: the caller's own, or that of the user a trusted caller names; a
   * refusal (403 untrusted caller or an account it may not name, 400 technical account without a user, 503), or
   * that the named user is unknown.
   */
  private async subjectOf(
    directory: UserLookup, callers: CallerAccounts, caller: Identity, serviceUser: string | undefined,
  ): Promise<Identity | Refusal | { noAccess: NoAccessReason; cachedUntil: number }> {
    let roles: CallerRoles;
    try {
      roles = await callers.roles();
    } catch (error) {
      if (!(error instanceof DirectoryError)) throw error;
      return DIRECTORY_UNAVAILABLE;
    }
    if (serviceUser === undefined) {
      const role = roles.technicalRole(caller.sid);
      if (role === null) return caller;
      const what = role === 'trusted_caller' ? 'a trusted caller (wiki.trusted_callers)' : 'the indexer service account';
      return {
        ok: false,
        status: 400,
        error: 'service_user_required',
        message: `X-Service-User is missing: ${caller.account} is ${what} and never reads the wiki as itself; ` +
          (role === 'trusted_caller'
            ? 'name the user the call is for in X-Service-User'
            : 'call with the user\'s own credentials, or list your service account in wiki.trusted_callers and name the user in X-Service-User'),
      };
    }
    if (!roles.isTrusted(caller.sid)) {
      this.counters.untrustedOnBehalfCalls++;
      return {
        ok: false,
        status: 403,
        error: 'untrusted_caller',
        message: `${caller.account} may not call on behalf of another user (it is not in wiki.trusted_callers); leave X-Service-User out to call as yourself`,
      };
    }
    let user: LookedUpUser | { none: true };
    let adminGroupSids: Map<string, string>;
    try {
      user = await this.lookUp(directory, serviceUser);
      adminGroupSids = 'none' in user ? new Map() : await this.groups!.resolveGroupSids(callers.namedAdminGroups);
    } catch (error) {
      if (!(error instanceof DirectoryError)) throw error;
      // parseServiceUserHeader applies the login-name rules, so this is a safety net, not a path.
      if (error.kind === 'invalid_credentials') return { ok: false, status: 400, error: 'bad_service_user_header', message: error.message };
      return DIRECTORY_UNAVAILABLE;
    }
    const cachedUntil = this.now() + this.namedUsers.getRemainingTTL(serviceUser.toLowerCase());
    if ('none' in user) {
      this.counters.onBehalfCalls++;
      return { noAccess: 'user_unknown', cachedUntil };
    }
    const rule = roles.serviceUserRefusal(user, new Set(adminGroupSids.values()));
    if (rule !== null) {
      this.counters.serviceUserRefusals[rule]++;
      return { ok: false, status: 403, error: `service_user_${rule}`, message: serviceUserRefusalMessage(user.account, rule) };
    }
    this.counters.onBehalfCalls++;
    return { account: user.account, sid: user.sid, tokenGroupSids: new Set(user.groupSids), cachedUntil };
  }

  /**
   * The client of a Kerberos ticket the front accepted: the account of its PAC's `sid`, its token read with the
   * indexer account (cached like a named user, by the SID). The ticket may outlive a change of the account: one the
   * directory would not let log on now is refused; one renamed since is the same account. `ticketName`, the
   * ticket's client name, is for the messages only.
   */
  private async ticketHolder(directory: UserLookup, sid: string, ticketName: string): Promise<Identity | Refusal> {
    let user = this.ticketHolders.get(sid);
    if (user === undefined) {
      user = (await this.askDirectory(() => directory.lookupUserBySid(sid))) ?? { none: true as const };
      this.ticketHolders.set(sid, user);
    }
    if ('none' in user) {
      return { ok: false, status: 401, error: 'negotiate_user_unknown', message: `the directory has no account of ${sid}, whom the Kerberos ticket of ${ticketName} names` };
    }
    if (user.state !== 'active') {
      return { ok: false, status: 401, error: `negotiate_user_${user.state}`, message: `the Kerberos ticket names ${user.account}, whose account is ${user.state.replace('_', ' ')} now` };
    }
    this.counters.negotiatedCalls++;
    const cachedUntil = this.now() + this.ticketHolders.getRemainingTTL(sid);
    const barrier = delegationBarrier(user);
    return { account: user.account, sid: user.sid, tokenGroupSids: new Set(user.groupSids), cachedUntil, ...(barrier === null ? {} : { notDelegable: barrier }) };
  }

  /** The named user (a name parseServiceUserHeader accepted), from the cache or read with the indexer account. */
  private async lookUp(directory: UserLookup, name: string): Promise<LookedUpUser | { none: true }> {
    const key = name.toLowerCase();
    const cached = this.namedUsers.get(key);
    if (cached !== undefined) return cached;
    const user = (await this.askDirectory(() => directory.lookupUser(name))) ?? { none: true as const };
    this.namedUsers.set(key, user);
    return user;
  }

  private async login(directory: UserAuthenticator, { user, password, clientAddress }: ViewerQuery): Promise<Identity> {
    // Keyed by what the directory is asked (every spelling of one bind name shares the entry). A malformed name
    // throws here, before anything is counted.
    const name = directory.loginName(user).bindName.toLowerCase();
    const key = this.credentialKey(name, password);
    const cached = this.logins.get(key);
    if (cached !== undefined) {
      this.counters.cachedLogins++;
      return cached;
    }
    // Concurrent calls with the same credentials (a portal firing several searches as its login expires) wait for
    // one bind: each bind would be an attempt the throttle counts as a failure until it is settled, and a burst of
    // them could lock out an account whose password is right.
    const pending = this.loginsUnderWay.get(key);
    if (pending !== undefined) return pending;
    const identity = this.bindAndCache(directory, key, { user, password, clientAddress });
    this.loginsUnderWay.set(key, identity);
    try {
      return await identity;
    } finally {
      this.loginsUnderWay.delete(key);
    }
  }

  private async bindAndCache(directory: UserAuthenticator, key: string, { user, password, clientAddress }: Pick<ViewerQuery, 'user' | 'password' | 'clientAddress'>): Promise<Identity> {
    const bind = () => directory.authenticateUser(user, password);
    const attempt = { account: boundLoginBudget(directory.loginName(user)), address: clientAddress };
    const account = await guardedLogin(this.options.guard, attempt, bind, isInvalidCredentials).catch((error: unknown) => {
      if (error instanceof DirectoryError && error.kind === 'directory_unavailable') this.counters.directoryErrors++;
      throw error;
    });
    const identity: Identity = {
      account: account.account, sid: account.sid, tokenGroupSids: new Set(account.groupSids), cachedUntil: this.now() + this.options.loginTtlMs,
    };
    this.logins.set(key, identity);
    this.counters.logins++;
    return identity;
  }

  /** Group name → SID; during an outage only what the cache already knows. */
  private async resolveGroups(groups: GroupSidResolver, names: readonly string[]): Promise<Map<string, string>> {
    try {
      return await groups.resolveGroupSids(names);
    } catch (error) {
      if (!(error instanceof DirectoryError)) throw error;
      // One name at a time, so that cached names still resolve; uncached ones fail at once during the cooldown.
      const known = new Map<string, string>();
      for (const name of names) {
        const found = await groups.resolveGroupSids([name]).catch(() => new Map<string, string>());
        for (const [key, sid] of found) known.set(key, sid);
      }
      return known;
    }
  }

  private async askDirectory<T>(call: () => Promise<T>): Promise<T> {
    if (this.now() < this.directoryDownUntil) {
      throw new DirectoryError('directory_unavailable', 'the directory failed moments ago; not asking again yet');
    }
    try {
      return await call();
    } catch (error) {
      // A refused service account is as fatal for group lookups as an unreachable directory; a refused name
      // (invalid_credentials: bad input) says nothing about the directory and must not make it "down" for everyone.
      if (error instanceof DirectoryError && error.kind === 'directory_unavailable') {
        this.counters.directoryErrors++;
        this.directoryDownUntil = this.now() + this.cooldownMs;
      }
      throw error;
    }
  }
}
