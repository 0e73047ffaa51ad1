/**
 * The accounts the config gives a role in calls on behalf of a user — `wiki.trusted_callers`, the indexer account
 * `smb.indexer_service_account.user`, the global-admin account `admin.user` — as the SIDs of the directory's
 * accounts, for the rules of service-user.ts. Names would not do: the config may spell an account as `DOMAIN\name`,
 * `name@realm` or an explicit userPrincipalName whose suffix and user part are not the domain and the
 * sAMAccountName, and a caller may name the same account in any other of these spellings.
 *
 * Resolved through the ldap-resolver's directory (read with the indexer account) on first use and again after
 * `ttlMs` (`ldap.cache_ttl`: an account deleted and created anew has a new SID). When the directory cannot be asked,
 * the last resolution stays in force, so that a directory outage does not turn away callers whose logins are
 * cached; before the first one, the caller gets the directory's error (503).
 */
import { DirectoryError } from '../ldap/connection.js';
import type { LookedUpUser } from '../ldap/directory.js';
import { type LoginDomain, parseLoginName } from '../ldap/login-name.js';
import { CallerRoles, DNS_ADMINS_GROUP } from './service-user.js';

/** What config.yml says of the callers (the names as written). */
export interface CallerConfig {
  /** `wiki.trusted_callers`. */
  trustedCallers: readonly string[];
  /** `smb.indexer_service_account.user`. */
  indexerAccount: string;
  /** `admin.user`. */
  adminAccount: string;
  /** `admin.groups`: the service's own admin groups, refused in X-Service-User like the domain's privileged ones. */
  adminGroups: readonly string[];
  /** The DNS and NetBIOS names of the domain, to tell a name of another domain (`OTHER\name`). */
  domain: LoginDomain;
  /** `wiki.trusted_callers_may_name_admins`. */
  mayNameAdmins: boolean;
}

export class CallerAccounts {
  private resolved: { roles: CallerRoles; until: number } | undefined;
  /** The resolution under way: concurrent callers share it. */
  private underWay: Promise<CallerRoles> | undefined;

  /** `lookUp`: the directory's account of a name (Directory.lookupUser), null when it has none. */
  constructor(
    private readonly config: CallerConfig,
    private readonly lookUp: (name: string) => Promise<LookedUpUser | null>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The admin groups a trusted caller may not name a member of that are known by name, not by a well-known SID:
   * `admin.groups` and the domain's DnsAdmins (service-user.ts).
   */
  get namedAdminGroups(): readonly string[] {
    return [...this.config.adminGroups, DNS_ADMINS_GROUP];
  }

  /** The roles, by SID; throws the directory's error only when it has never answered. */
  async roles(): Promise<CallerRoles> {
    if (this.resolved !== undefined && this.now() < this.resolved.until) return this.resolved.roles;
    this.underWay ??= this.resolve().finally(() => {
      this.underWay = undefined;
    });
    try {
      return await this.underWay;
    } catch (error) {
      if (error instanceof DirectoryError && this.resolved !== undefined) return this.resolved.roles;
      throw error;
    }
  }

  private async resolve(): Promise<CallerRoles> {
    const { trustedCallers, indexerAccount, adminAccount, mayNameAdmins } = this.config;
    const [indexer, admin, ...callers] = await Promise.all([indexerAccount, adminAccount, ...trustedCallers].map((name) => this.sidOf(name)));
    const roles = new CallerRoles({
      trustedCallers: new Set(callers.filter((sid): sid is string => sid !== undefined)), indexer, admin, mayNameAdmins,
    });
    this.resolved = { roles, until: this.now() + this.ttlMs };
    return roles;
  }

  /** The SID of the account `name` names in this domain; undefined for none (unknown, malformed, another domain). */
  private async sidOf(name: string): Promise<string | undefined> {
    const { domain } = this.config;
    try {
      // An account of another domain (`OTHER\name`) is none of ours: parseLoginName refuses it.
      parseLoginName(name, domain);
      return (await this.lookUp(name))?.sid;
    } catch (error) {
      if (error instanceof DirectoryError && error.kind === 'invalid_credentials') return undefined;
      throw error;
    }
  }
}
