// Which account's failure budget a login spends (login-throttle.ts). A name's user part is its account's name for
// `DOMAIN\user` and a bare name, but not for a principal name: an explicit UPN (`a.mueller@schule.de` of `anna`)
// may carry any user part, and without a lookup that account would have a second budget. So a principal name is
// mapped to the account holding it, by the directory, through the ldap-resolver's bounded service connections and
// an LRU cache that keeps unknown names too: a spray of fresh names costs the DC at most one search per distinct
// name and cache period, on connections it already has, never a connection per guess.
//
// Where no answer is to be had, the budget is the name's user part (what it was before names were looked up): with
// no directory configured, and for a name not cached while the directory does not answer (then lookups rest for a
// few seconds, so that logins are not slowed by one timeout after another). A lookup never fails a login: a login's own bind or SMB logon
// says whether the directory or the DC is down.
import { LRUCache } from 'lru-cache';
import { isInvalidCredentials } from '../ldap/connection.js';
import { budgetUserPart } from '../ldap/login-name.js';
import type { LoginAttempt } from './login-throttle.js';

/** The directory's reading of a login name (src/ldap/directory.ts). */
export interface LoginAccountDirectory {
  /** The sAMAccountName of the account `name` binds as; null when there is none. */
  loginAccount(name: string): Promise<string | null>;
}

export interface LoginAccountsOptions {
  /** `ldap.cache_ttl` in ms: how long a principal name's account is trusted. */
  readonly ttlMs: number;
  /** `ldap.negative_cache_ttl` in ms: how long a principal name nobody holds stays unknown. */
  readonly negativeTtlMs: number;
  /** Names kept at most (the least recently used go first). */
  readonly maxNames?: number;
  /** How long lookups rest after the directory did not answer. */
  readonly restMs?: number;
  readonly now?: () => number;
}

export interface LoginAccountsStats {
  /** Directory searches for the account of a principal name since the thread started. */
  loginAccountLookups: number;
  /** Of those, the ones the directory did not answer (the name's user part was counted instead). */
  loginAccountLookupFailures: number;
}

const DEFAULT_MAX_NAMES = 10_000;
const DEFAULT_REST_MS = 5_000;

export class LoginAccounts {
  private readonly accounts: LRUCache<string, string>;
  private readonly now: () => number;
  private restUntil = 0;
  private lookups = 0;
  private failures = 0;

  constructor(private readonly directory: LoginAccountDirectory | null, private readonly options: LoginAccountsOptions) {
    this.now = options.now ?? Date.now;
    this.accounts = new LRUCache<string, string>({
      max: options.maxNames ?? DEFAULT_MAX_NAMES,
      ttl: options.ttlMs,
      perf: { now: this.now },
      ttlResolution: 0,
      // Parallel attempts with one new name wait for one search.
      fetchMethod: async (name, _stale, { options: entry }) => {
        this.lookups++;
        const account = await directory!.loginAccount(name);
        if (account !== null) return account.toLowerCase();
        entry.ttl = this.options.negativeTtlMs;
        return budgetUserPart(name);
      },
    });
  }

  /** The attempt with the account whose budget it spends in place of the name's own reading (loginBudget). */
  async counted(attempt: LoginAttempt): Promise<LoginAttempt> {
    return { ...attempt, account: await this.accountOf(attempt.account) };
  }

  get stats(): LoginAccountsStats {
    return { loginAccountLookups: this.lookups, loginAccountLookupFailures: this.failures };
  }

  private async accountOf(budget: string): Promise<string> {
    const userPart = budgetUserPart(budget);
    if (userPart === budget || this.directory === null) return userPart;
    const known = this.accounts.get(budget);
    if (known !== undefined) return known;
    if (this.now() < this.restUntil) return userPart;
    try {
      return (await this.accounts.fetch(budget)) ?? userPart;
    } catch (err) {
      // A name the directory cannot read as a login name is nobody's; any other failure is the directory's.
      if (!isInvalidCredentials(err)) {
        this.failures++;
        this.restUntil = this.now() + (this.options.restMs ?? DEFAULT_REST_MS);
      }
      return userPart;
    }
  }
}
