import { type Client, type Entry, type Filter, ProtocolError } from 'ldapts';
import { allOf, anyOf, equals, equalsAny } from './filters.js';
import {
  DirectoryError,
  type LdapClientFactory,
  LdapConfigError,
  toDirectoryError,
  withLdapClient,
} from './connection.js';
import { BoundConnections } from './bound-connections.js';
import { type LoginDomain, type LoginName, parseLoginName, realmFromBaseDn } from './login-name.js';
import { decodeSid, encodeSid, inProtocol } from '../windows-security/sid.js';
import type { GroupSidResolver } from './group-sid-cache.js';

interface DirectoryOptions {
  /** `ldap.base_dn`: every user and group lookup is a subtree search below it. */
  readonly baseDn: string;
  /** UPN suffix for bare user names; derived from the DC= parts of `baseDn` when absent. */
  readonly realm?: string | undefined;
  /** NetBIOS name of the domain (`smb.domain`): with the realm, the only DOMAIN a `DOMAIN\user` login may name. */
  readonly domain: string;
  /** The indexer service account, used to resolve group names to SIDs. */
  readonly serviceAccount?: { readonly user: string; readonly password: string } | undefined;
  /** Names or SIDs per search; each batch is one LDAP search. */
  readonly batchSize?: number | undefined;
  /** Connections kept open for the service account (BoundConnections); lookups beyond them wait. */
  readonly serviceConnections?: number | undefined;
}

/** A user whose password the directory accepted, with the transitive group membership. */
export interface DirectoryUser {
  readonly dn: string;
  /** sAMAccountName as stored in the directory. */
  readonly account: string;
  readonly sid: string;
  /** sAMAccountNames of all groups the user is in, nested membership included. */
  readonly groups: string[];
  /** SIDs of the same groups (the user's `tokenGroups`), including groups outside `baseDn`. */
  readonly groupSids: string[];
}

/** What the admin authentication needs from the directory. */
export interface UserAuthenticator {
  authenticateUser(user: string, password: string): Promise<DirectoryUser>;
  /** How a login name is bound (login-name.ts); a malformed one is a DirectoryError (`invalid_credentials`). */
  loginName(user: string): LoginName;
}

/**
 * Whether the directory would let an account log on now: `active`, or why not. `disabled` (ACCOUNTDISABLE in
 * `userAccountControl`), `locked` (too many wrong passwords), `expired` (`accountExpires` has passed),
 * `password_expired` (the password must be changed first); `locked` and `password_expired` are the DC's own
 * verdict, read from the constructed `msDS-User-Account-Control-Computed`.
 */
export type AccountState = 'active' | 'disabled' | 'locked' | 'expired' | 'password_expired';

/** A user looked up by name with the service account (no password of theirs involved). */
export interface LookedUpUser {
  /** sAMAccountName as stored in the directory. */
  readonly account: string;
  readonly sid: string;
  /** The user's `tokenGroups` (transitive membership, primary group included), as for a login. */
  readonly groupSids: string[];
  readonly state: AccountState;
  /** A computer (or managed service) account: its `objectClass` includes `computer`. */
  readonly computer: boolean;
  /** "Account is sensitive and cannot be delegated" (`userAccountControl` NOT_DELEGATED). */
  readonly notDelegated: boolean;
  /**
   * `adminCount` is set (adminCountSet): the directory (AdminSDHolder) marks so every member of a protected group —
   * Domain Admins, Administrators, the Operators and others — and keeps the mark after the account leaves the group.
   */
  readonly adminCount: boolean;
}

/**
 * The account a logon reaches and whether it may still log on, as a pooled SMB session is checked against it
 * (src/logon/account-sessions.ts): read with the service account, never cached.
 */
export interface LogonAccount {
  /** sAMAccountName as stored in the directory. */
  readonly account: string;
  /** objectSid: the one key of the account, whichever name it logged on with. */
  readonly sid: string;
  readonly state: AccountState;
  /** `pwdLastSet` as the directory gives it (100 ns ticks since 1601): a change means a new password. */
  readonly passwordSetAt: string;
}

/** Which account `logonAccount` reads: the one a login name binds as, or the one with this SID. */
export type LogonAccountQuery = { readonly name: string } | { readonly sid: string };

/**
 * What a logon asks of the thread that reads the directory (the ldap-resolver serves it): the account a login name
 * or a SID reaches and whether it may log on; `account: null` when there is none, `unavailable` (why) when the
 * directory cannot answer, `unconfigured` (why) when the service has no directory to ask (no `ldap.base_dn` or no
 * indexer password). Never cached.
 */
export interface LogonAccountSource {
  logonAccount(query: LogonAccountQuery): Promise<{ account: LogonAccount | null } | { unavailable: string } | { unconfigured: string }>;
}

/** What `doctor` checks of a Kerberos account: its SPNs, key version and delegation settings. */
export interface KerberosAccount {
  /** sAMAccountName as stored in the directory. */
  readonly account: string;
  readonly servicePrincipalNames: string[];
  /** `msDS-KeyVersionNumber`: the version of the account's current keys, which a keytab must hold. */
  readonly keyVersion: number | undefined;
  /** `userAccountControl` TRUSTED_TO_AUTH_FOR_DELEGATION: protocol transition (S4U2Self gives a forwardable ticket). */
  readonly protocolTransition: boolean;
  /** `userAccountControl` NOT_DELEGATED: "sensitive and cannot be delegated". */
  readonly notDelegated: boolean;
  /** `msDS-AllowedToDelegateTo`: the services S4U2Proxy may reach in a user's name. */
  readonly allowedToDelegateTo: string[];
}

/** What on-behalf calls need: a user's token and account state, read with the service account. */
export interface UserLookup {
  /** The user named `name` (sAMAccountName or UPN) under `baseDn`; null when there is no such user. */
  lookupUser(name: string): Promise<LookedUpUser | null>;
  /** The user whose `objectSid` is `sid` under `baseDn` (whatever it is called now); null when there is none. */
  lookupUserBySid(sid: string): Promise<LookedUpUser | null>;
}

const DEFAULT_BATCH_SIZE = 200;
/** Service-account connections kept open by default: lookups are short, and the DC serves every school's users. */
export const DEFAULT_SERVICE_CONNECTIONS = 2;
/** An idle service-account connection is closed after this long. */
const SERVICE_CONNECTION_IDLE_MS = 10_000;
/** The LDAP "Who am I?" extended operation (RFC 4532). */
const WHO_AM_I_OID = '1.3.6.1.4.1.4203.1.11.3';

/**
 * User authentication and group resolution against Active Directory (Samba AD) over LDAPS.
 * A user's login opens its own connection (bound as that user) and closes it; lookups with the service account
 * share at most `serviceConnections` connections kept open (BoundConnections). The object can be shared freely.
 * Errors are DirectoryErrors: `invalid_credentials` (answer 401) or `directory_unavailable` (503).
 */
export class Directory implements UserAuthenticator, UserLookup, GroupSidResolver {
  private readonly names: LoginDomain;
  private readonly batchSize: number;
  private readonly serviceConnections: BoundConnections | undefined;

  constructor(private readonly connect: LdapClientFactory, private readonly options: DirectoryOptions) {
    const realm = options.realm ?? realmFromBaseDn(options.baseDn);
    if (realm === undefined) {
      throw new LdapConfigError(`ldap.base_dn '${options.baseDn}' has no DC= parts to derive the realm from`);
    }
    this.names = { realm, domain: options.domain };
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new LdapConfigError(`batch size must be a positive integer, got ${this.batchSize}`);
    }
    const account = options.serviceAccount;
    if (account !== undefined) {
      const { bindName } = parseLoginName(account.user, this.names);
      this.serviceConnections = new BoundConnections(
        connect,
        (client) => this.bind(client, bindName, account.password, 'binding as the service account'),
        { size: options.serviceConnections ?? DEFAULT_SERVICE_CONNECTIONS, idleMs: SERVICE_CONNECTION_IDLE_MS },
      );
    }
  }

  /** The login name as every part of the service reads it (login-name.ts); a malformed one is `invalid_credentials`. */
  loginName(user: string): LoginName {
    return parseLoginName(user, this.names);
  }

  /** Service-account connections opened since the start (each a TCP + TLS handshake and a bind at the DC). */
  get openedServiceConnections(): number {
    return this.serviceConnections?.openedConnections ?? 0;
  }

  /** Closes the idle service-account connections (they also close by themselves when idle). */
  close(): Promise<void> {
    return this.serviceConnections?.close() ?? Promise.resolve();
  }

  /**
   * Verifies the password with a simple bind as the user, then asks the directory whom it authenticated (LDAP
   * "Who am I?") and reads exactly that entry and its `tokenGroups` (transitive membership, primary group
   * included) over the same connection. Not the entry the name would find by searching: a bare name binds as
   * its implicit UPN, which another account's explicit `userPrincipalName` takes precedence over, so the name
   * and the authenticated account can differ; the groups must be those of the account the password was for.
   */
  async authenticateUser(user: string, password: string): Promise<DirectoryUser> {
    const login = parseLoginName(user, this.names);
    // An empty password would make the simple bind an unauthenticated one, which succeeds.
    if (password === '') throw new DirectoryError('invalid_credentials', 'password is empty');
    return withLdapClient(this.connect, async (client) => {
      await this.bind(client, login.bindName, password, 'checking the password');
      try {
        const entry = await this.authenticatedEntry(client);
        if (typeof entry === 'string') throw new DirectoryError('invalid_credentials', entry);
        const sid = decodeSid(asBuffer(single(entry, 'objectSid')));
        const groupSids = await this.tokenGroups(client, entry);
        const names = await this.searchGroups(client, 'objectSid', groupSids.map(encodeSid));
        return {
          dn: entry.dn,
          account: text(single(entry, 'sAMAccountName')),
          sid,
          groups: names.map((g) => g.name),
          groupSids,
        };
      } catch (err) {
        throw toDirectoryError(err, 'reading the user entry and groups');
      }
    });
  }

  /**
   * Reads the user named `name` with the service account: SID, `tokenGroups`, whether the account may log on and
   * its `adminCount`, all but `tokenGroups` (a constructed attribute AD gives only on a base search) from the search
   * that finds the entry.
   * An invalid name is a DirectoryError (`invalid_credentials`); an unknown or ambiguous one is null.
   */
  async lookupUser(name: string): Promise<LookedUpUser | null> {
    const login = parseLoginName(name, this.names);
    return this.asServiceAccount('looking up a user', async (client) => {
      const entry = await this.findUserEntry(client, login, LOOKED_UP_ATTRIBUTES);
      return typeof entry === 'string' ? null : this.lookedUp(client, entry);
    });
  }

  /**
   * Reads the user whose SID is `sid` with the service account, as lookupUser does: the account a Kerberos ticket's
   * PAC names, found by what does not change when the account is renamed or another one takes its old name.
   * A malformed SID is a DirectoryError (`invalid_credentials`); an unknown one is null.
   */
  async lookupUserBySid(sid: string): Promise<LookedUpUser | null> {
    const encoded = searchableSid(sid);
    return this.asServiceAccount('looking up a user by SID', async (client) => {
      const entry = await this.entryBySid(client, encoded, LOOKED_UP_ATTRIBUTES);
      return typeof entry === 'string' ? null : this.lookedUp(client, entry);
    });
  }

  /** A user entry found with LOOKED_UP_ATTRIBUTES as LookedUpUser (its `tokenGroups` read with a base search). */
  private async lookedUp(client: Client, entry: Entry): Promise<LookedUpUser> {
    return {
      account: text(single(entry, 'sAMAccountName')),
      sid: decodeSid(asBuffer(single(entry, 'objectSid'))),
      groupSids: await this.tokenGroups(client, entry),
      state: accountState(entry, Date.now()),
      computer: values(entry, 'objectClass').some((v) => text(v).toLowerCase() === 'computer'),
      notDelegated: (flags(entry, 'userAccountControl') & UF_NOT_DELEGATED) !== 0,
      adminCount: adminCountSet(entry),
    };
  }

  /**
   * The sAMAccountName of the account the login name `name` binds as, read with the service account, as the DC
   * resolves a principal name: the holder of that explicit userPrincipalName, else (in this realm) the account its
   * user part names. Null when there is none or the name is ambiguous.
   */
  async loginAccount(name: string): Promise<string | null> {
    const login = parseLoginName(name, this.names);
    return this.asServiceAccount('looking up the account of a login name', async (client) => {
      const entry = await this.findUserEntry(client, login);
      return typeof entry === 'string' ? null : text(single(entry, 'sAMAccountName'));
    });
  }

  /**
   * The account a logon with the login name reaches, or the account with the SID (a deleted account recreated under
   * its name has another), with its state and password-last-set; null when there is none (or the name is ambiguous).
   * One search with the service account, no `tokenGroups`. An invalid name is a DirectoryError (`invalid_credentials`).
   */
  async logonAccount(query: LogonAccountQuery): Promise<LogonAccount | null> {
    const attributes = [...ACCOUNT_STATE_ATTRIBUTES, 'pwdLastSet'];
    let find: (client: Client) => Promise<Entry | string>;
    if ('name' in query) {
      const login = parseLoginName(query.name, this.names);
      find = (client) => this.findUserEntry(client, login, attributes);
    } else {
      const encoded = searchableSid(query.sid);
      find = (client) => this.entryBySid(client, encoded, attributes);
    }
    return this.asServiceAccount('reading the state of a logon\'s account', async (client) => {
      const entry = await find(client);
      if (typeof entry === 'string') return null;
      return {
        account: text(single(entry, 'sAMAccountName')),
        sid: decodeSid(asBuffer(single(entry, 'objectSid'))),
        state: accountState(entry, Date.now()),
        passwordSetAt: text(values(entry, 'pwdLastSet')[0] ?? '0'),
      };
    });
  }

  /** The Kerberos settings of the account `name` (sAMAccountName), read with the service account; null when unknown. */
  async kerberosAccount(name: string): Promise<KerberosAccount | null> {
    const login = parseLoginName(name, this.names);
    return this.asServiceAccount('reading an account\'s Kerberos settings', async (client) => {
      const attributes = ['userAccountControl', 'servicePrincipalName', 'msDS-KeyVersionNumber', 'msDS-AllowedToDelegateTo'];
      const entry = await this.findUserEntry(client, login, attributes);
      if (typeof entry === 'string') return null;
      const keyVersion = values(entry, 'msDS-KeyVersionNumber')[0];
      return {
        account: text(single(entry, 'sAMAccountName')),
        servicePrincipalNames: values(entry, 'servicePrincipalName').map(text),
        keyVersion: keyVersion === undefined ? undefined : Number(text(keyVersion)),
        protocolTransition: (flags(entry, 'userAccountControl') & UF_TRUSTED_TO_AUTH_FOR_DELEGATION) !== 0,
        notDelegated: (flags(entry, 'userAccountControl') & UF_NOT_DELEGATED) !== 0,
        allowedToDelegateTo: values(entry, 'msDS-AllowedToDelegateTo').map(text),
      };
    });
  }

  /**
   * Group name (sAMAccountName, case-insensitive) → SID, for names of groups under `baseDn`.
   * Unknown names are absent from the result. Binds as the service account; one search per batch.
   */
  async resolveGroupSids(names: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(names.filter((n) => n !== ''))];
    const resolved = new Map<string, string>();
    if (wanted.length === 0) return resolved;
    return this.asServiceAccount('resolving group names', async (client) => {
      const groups = await this.searchGroups(client, 'sAMAccountName', wanted);
      const sidByName = new Map(groups.map((g) => [g.name.toLowerCase(), g.sid]));
      for (const name of wanted) {
        const sid = sidByName.get(name.toLowerCase());
        if (sid !== undefined) resolved.set(name, sid);
      }
      return resolved;
    });
  }

  /**
   * Whether the directory answers as this service uses it, on a connection of its own (a pooled one would answer
   * without asking the server): a bind as the service account, or, without one, a read of the root DSE. Resolves
   * to what was done; fails with a DirectoryError saying what failed.
   */
  async probe(): Promise<'bound' | 'answered'> {
    const account = this.options.serviceAccount;
    return withLdapClient(this.connect, async (client) => {
      if (account !== undefined) {
        await this.bind(client, this.loginName(account.user).bindName, account.password, 'binding as the service account');
        return 'bound';
      }
      try {
        await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['defaultNamingContext'] });
      } catch (err) {
        throw toDirectoryError(err, 'reading the root DSE');
      }
      return 'answered';
    });
  }

  /** Runs `work` on a connection bound as the service account; its errors become DirectoryErrors. */
  private async asServiceAccount<T>(doing: string, work: (client: Client) => Promise<T>): Promise<T> {
    if (this.serviceConnections === undefined) {
      throw new LdapConfigError(`${doing} needs the indexer service account (user and password)`);
    }
    return this.serviceConnections.run(async (client) => {
      try {
        return await work(client);
      } catch (err) {
        throw toDirectoryError(err, doing);
      }
    });
  }

  private async bind(client: Client, bindName: string, password: string, doing: string): Promise<void> {
    try {
      await client.bind(bindName, password);
    } catch (err) {
      throw toDirectoryError(err, doing);
    }
  }

  /** The entry of the account the connection is bound as, or why there is none under `baseDn`. */
  private async authenticatedEntry(client: Client): Promise<Entry | string> {
    let filter = await this.whoAmI(client);
    if (filter === undefined) {
      const token = await this.connectionToken(client);
      if (token.length === 0) return 'the directory names no account of this domain for this login';
      filter = equalsAny('objectSid', token.map(encodeSid));
    }
    const { searchEntries } = await client.search(this.options.baseDn, {
      scope: 'sub',
      filter: allOf(equals('objectClass', 'user'), filter),
      attributes: ['objectSid', 'sAMAccountName'],
      explicitBufferAttributes: ['objectSid'],
      sizeLimit: 2,
    });
    if (searchEntries.length === 1) return searchEntries[0]!;
    return searchEntries.length === 0 ? 'no user entry for this login under ldap.base_dn' : 'login name is ambiguous';
  }

  /**
   * Who the connection is bound as, by LDAP "Who am I?" (RFC 4532; Windows answers `u:DOMAIN\\account` or
   * `dn:<dn>`), as a filter for its entry; undefined where the DC does not offer the operation (Samba before 4.20
   * answers protocolError "not supported").
   */
  private async whoAmI(client: Client): Promise<Filter | undefined> {
    let authzId: string;
    try {
      authzId = (await client.exop(WHO_AM_I_OID)).value ?? '';
    } catch (err) {
      if (err instanceof ProtocolError) return undefined;
      throw err;
    }
    return authzIdFilter(authzId);
  }

  /**
   * The SIDs of the connection's own security token, which AD and Samba give as `tokenGroups` of the root DSE:
   * the authenticated account's SID among them (the only user SID in a token) and its groups. The fallback for
   * a DC without "Who am I?".
   */
  private async connectionToken(client: Client): Promise<string[]> {
    const { searchEntries } = await client.search('', {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: ['tokenGroups'],
      explicitBufferAttributes: ['tokenGroups'],
    });
    return values(searchEntries[0], 'tokenGroups').map((v) => decodeSid(asBuffer(v))).filter((sid) => sid.startsWith('S-1-5-21-'));
  }

  /**
   * The entry of the account `login` names, or why there is none: user and computer accounts (a computer's
   * objectClass includes `user`), so that a caller can tell a computer from an unknown name.
   */
  private async findUserEntry(client: Client, login: LoginName, extraAttributes: readonly string[] = []): Promise<Entry | string> {
    const ways: Filter[] = [];
    if (login.userPrincipalName !== undefined) ways.push(equals('userPrincipalName', login.userPrincipalName));
    if (login.account !== undefined) ways.push(equals('sAMAccountName', login.account));
    const { searchEntries } = await client.search(this.options.baseDn, {
      scope: 'sub',
      filter: allOf(equals('objectClass', 'user'), anyOf(...ways)),
      attributes: ['objectSid', 'sAMAccountName', 'userPrincipalName', ...extraAttributes],
      explicitBufferAttributes: ['objectSid'],
      sizeLimit: 2,
    });
    const upn = login.userPrincipalName?.toLowerCase();
    const entry =
      searchEntries.length === 1
        ? searchEntries[0]
        : searchEntries.find((e) => values(e, 'userPrincipalName').some((v) => text(v).toLowerCase() === upn));
    if (entry !== undefined) return entry;
    return searchEntries.length === 0 ? 'no user entry for this login under ldap.base_dn' : 'login name is ambiguous';
  }

  /** The user entry with this objectSid (searchableSid), or why there is none. */
  private async entryBySid(client: Client, sid: Buffer, attributes: readonly string[]): Promise<Entry | string> {
    const { searchEntries } = await client.search(this.options.baseDn, {
      scope: 'sub',
      filter: allOf(equals('objectClass', 'user'), equals('objectSid', sid)),
      attributes: ['objectSid', 'sAMAccountName', ...attributes],
      explicitBufferAttributes: ['objectSid'],
      sizeLimit: 2,
    });
    // A SID names one account in a domain; two entries would be a broken directory, trusted with neither.
    return searchEntries.length === 1 ? searchEntries[0]! : 'no user entry with this SID under ldap.base_dn';
  }

  /** The entry's `tokenGroups` as SIDs. */
  private async tokenGroups(client: Client, entry: Entry): Promise<string[]> {
    const { searchEntries } = await client.search(entry.dn, {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: ['tokenGroups'],
      explicitBufferAttributes: ['tokenGroups'],
    });
    return values(searchEntries[0], 'tokenGroups').map((v) => decodeSid(asBuffer(v)));
  }

  /** Groups whose `attribute` equals one of `wanted`, in one search per batch. */
  private async searchGroups(
    client: Client,
    attribute: 'sAMAccountName' | 'objectSid',
    wanted: readonly (string | Buffer)[],
  ): Promise<{ name: string; sid: string }[]> {
    const found: { name: string; sid: string }[] = [];
    for (let start = 0; start < wanted.length; start += this.batchSize) {
      const batch = wanted.slice(start, start + this.batchSize);
      const { searchEntries } = await client.search(this.options.baseDn, {
        scope: 'sub',
        filter: allOf(equals('objectClass', 'group'), equalsAny(attribute, batch)),
        attributes: ['sAMAccountName', 'objectSid'],
        explicitBufferAttributes: ['objectSid'],
      });
      for (const entry of searchEntries) {
        found.push({ name: text(single(entry, 'sAMAccountName')), sid: decodeSid(asBuffer(single(entry, 'objectSid'))) });
      }
    }
    return found;
  }
}

/**
 * The filter for the entry a "Who am I?" answer names: `dn:<dn>` by its DN, `u:DOMAIN\\account` or `u:account`
 * by sAMAccountName. Any other answer (an anonymous connection's empty one included) says nobody we can find,
 * which is the directory failing, not the user: `directory_unavailable`.
 */
export function authzIdFilter(authzId: string): Filter {
  const dn = /^dn:(.+)$/is.exec(authzId)?.[1];
  if (dn !== undefined) return equals('distinguishedName', dn);
  const account = /^u:(?:[^\\]*\\)?(.+)$/is.exec(authzId)?.[1];
  if (account !== undefined) return equals('sAMAccountName', account);
  throw new DirectoryError('directory_unavailable', `the directory did not say whom it authenticated (Who am I? answered '${authzId}')`);
}

/** What accountState reads. */
const ACCOUNT_STATE_ATTRIBUTES = ['userAccountControl', 'msDS-User-Account-Control-Computed', 'accountExpires'];
/** What a LookedUpUser is read from besides the SID and name: the account's state, its object class, `adminCount`. */
const LOOKED_UP_ATTRIBUTES = [...ACCOUNT_STATE_ATTRIBUTES, 'objectClass', 'adminCount'];

/** A SID as an objectSid search takes it; a malformed one is a DirectoryError (`invalid_credentials`), asked of no one. */
function searchableSid(sid: string): Buffer {
  return inProtocol(() => encodeSid(sid), (message) => new DirectoryError('invalid_credentials', message));
}
/** Bits of `userAccountControl` and `msDS-User-Account-Control-Computed` (MS-ADTS 2.2.16). */
const UF_ACCOUNTDISABLE = 0x2;
const UF_LOCKOUT = 0x10;
const UF_NOT_DELEGATED = 0x100000;
const UF_PASSWORD_EXPIRED = 0x800000;
const UF_TRUSTED_TO_AUTH_FOR_DELEGATION = 0x1000000;
/** `accountExpires` counts 100 ns ticks since 1601-01-01; 0 and 2^63-1 mean never. */
const FILETIME_UNIX_EPOCH = 116_444_736_000_000_000n;
const NEVER = 0x7fff_ffff_ffff_ffffn;

/** Whether the account of `entry` may log on at `now` (ms since 1970), from its account-state attributes. */
export function accountState(entry: Entry, now: number): AccountState {
  if (flags(entry, 'userAccountControl') & UF_ACCOUNTDISABLE) return 'disabled';
  const computed = flags(entry, 'msDS-User-Account-Control-Computed');
  if (computed & UF_LOCKOUT) return 'locked';
  const expires = BigInt(text(values(entry, 'accountExpires')[0] ?? '0').trim() || '0');
  if (expires !== 0n && expires !== NEVER && expires <= BigInt(now) * 10_000n + FILETIME_UNIX_EPOCH) return 'expired';
  if (computed & UF_PASSWORD_EXPIRED) return 'password_expired';
  return 'active';
}

/**
 * Whether the entry's `adminCount` is set. Any value but 0 counts: AD writes 1, and a value this cannot read is no
 * reason to think the account unprivileged.
 */
export function adminCountSet(entry: Entry): boolean {
  const [value] = values(entry, 'adminCount');
  return value !== undefined && text(value).trim() !== '0';
}

/** A bit-field attribute (`userAccountControl`) as a number; 0 when absent. */
function flags(entry: Entry, attribute: string): number {
  return Number(text(values(entry, attribute)[0] ?? '0')) || 0;
}

/** Attribute values of an entry, matched case-insensitively by name. */
function values(entry: Entry | undefined, attribute: string): (Buffer | string)[] {
  if (entry === undefined) return [];
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function single(entry: Entry, attribute: string): Buffer | string {
  const [value] = values(entry, attribute);
  if (value === undefined) throw new DirectoryError('directory_unavailable', `entry ${entry.dn} has no ${attribute}`);
  return value;
}

function asBuffer(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

function text(value: Buffer | string): string {
  return typeof value === 'string' ? value : value.toString('utf8');
}
