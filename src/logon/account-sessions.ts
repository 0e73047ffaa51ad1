/**
 * Which account a pooled SMB session belongs to, and whether it may still be used. A session is a logon: the pool
 * reuses it for every request with the same credentials, long after the DC said yes, and an NTLM session never
 * authenticates again. So each session is tied to the account the directory names for its logon, keyed by SID (the
 * one name of an account, whichever spelling logged on; what locks and dead-property budgets are counted under), and
 * the account is asked again when the session has served `smb.session_max_age`: deleted (no entry with that SID; one
 * recreated under the same name has another), disabled, locked out, expired, or given a new password since the logon,
 * and the session is retired and the request answered 401.
 *
 * A fresh session passes without waiting for anything: the request path stays as fast as before (bench/webdav).
 *
 * Credentials whose session ended with a new password are refused until the password changes again: the DC itself
 * would take the old password for a new NTLM logon for a while (Samba's `old password allowed period`, 60 minutes
 * by default; Windows's OldPasswordAllowedPeriod), which would let a stolen password that was changed serve on.
 */
import { LRUCache } from 'lru-cache';
import { HttpError } from '../http/http-error.js';
import { SmbError, type PooledSession } from '../smb/index.js';

/** The directory's answer about an account (src/ldap/directory.ts LogonAccount; this layer cannot import it). */
export interface AccountStanding {
  readonly sid: string;
  /** `active`, or why the account may not log on. */
  readonly state: string;
  /** `pwdLastSet` as the directory gives it. */
  readonly passwordSetAt: string;
}

/**
 * Thrown by an AccountQuestion when the directory cannot answer (it is down, or the ldap-resolver restarts). The
 * file server then decides alone, as it does for its own clients: a new logon goes on (the DC checks the password
 * and the account's state itself) and its session is keyed by `fallbackKey` and asked about again after
 * `smb.session_max_age`; a session due for a check is ended and logged on anew (DavCall.logon), which is that check.
 */
export class DirectoryUnreachableError extends Error {
  constructor(readonly fallbackKey: string, readonly detail: string) {
    super(`the directory cannot say whether the account may log on: ${detail}`);
  }
}

/** The session was ended because its account could not be asked about; log on anew (the DC checks the account). */
export class LogonAgainError extends Error {
  constructor() {
    super('the session was due for an account check the directory could not answer; log on anew');
  }
}

/** Asks the directory (the ldap-resolver) about a login name or a SID; null when there is no such account. */
export type AccountQuestion = (query: { name: string } | { sid: string }) => Promise<AccountStanding | null>;

/** What is known of a session's account, and since when. */
interface SessionAccount {
  /** The account's SID; the login's fallback key while `unverifiedLogin` is set. */
  sid: string;
  passwordSetAt: string;
  /** Set when the directory could not be asked at the logon: the login, to ask by name at the next check. */
  unverifiedLogin?: string;
  checkedAt: number;
  /** The check under way, which every request of the session meanwhile waits for. */
  checking?: Promise<string>;
}

/** Credentials remembered as superseded by a new password; beyond that the least recently ended are forgotten. */
const MAX_SUPERSEDED = 10_000;

const SESSION_ENDED_MESSAGE = 'the account of this session can no longer log on, or its password was changed; log on again';

export class AccountSessions {
  private readonly sessions = new WeakMap<PooledSession, SessionAccount>();
  /** By PooledSession.key: the `pwdLastSet` that replaced the password of credentials whose session it ended. */
  private readonly superseded = new LRUCache<string, string>({ max: MAX_SUPERSEDED });

  constructor(
    private readonly ask: AccountQuestion,
    /** `smb.session_max_age` in ms. */
    private readonly maxAgeMs: number,
    /** The headers of a 401 (the WWW-Authenticate challenge). */
    private readonly challengeHeaders: Record<string, string>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new logon as `login` on `session`: the account is asked first, then claimed (the pool's bounds per account),
   * then `setup` runs the SMB session setup. Asking before the setup is deliberate: a password changed between the
   * two leaves a baseline older than the change, which the next check sees. A name the directory knows no account
   * for, or an account that may not log on, is refused without the DC being asked for a logon, as a LOGON_FAILURE:
   * the answer (and the login throttle's count) of a wrong password, so that it tells nobody which accounts exist.
   */
  async logon(session: PooledSession, login: string, setup: () => Promise<void>): Promise<void> {
    let standing: AccountStanding | null;
    try {
      standing = await this.ask({ name: login });
    } catch (err) {
      if (!(err instanceof DirectoryUnreachableError)) throw err;
      await session.claim(err.fallbackKey);
      await setup();
      this.sessions.set(session, { sid: err.fallbackKey, passwordSetAt: '', unverifiedLogin: login, checkedAt: this.now() });
      return;
    }
    if (standing === null) throw new SmbError('LOGON_FAILURE', 'the directory has no account of this login name');
    if (standing.state !== 'active') throw new SmbError('LOGON_FAILURE', `the directory says the account is ${standing.state.replace('_', ' ')}`);
    if (this.superseded.get(session.key) === standing.passwordSetAt) throw new SmbError('LOGON_FAILURE', 'the password of these credentials was changed');
    await session.claim(standing.sid);
    await setup();
    this.sessions.set(session, { sid: standing.sid, passwordSetAt: standing.passwordSetAt, checkedAt: this.now() });
  }

  /**
   * The SID of the session's account, for a request through a session that is logged on: at once while the check
   * is fresh; else after asking the directory again (one question for all the session's requests meanwhile), which
   * retires the session and throws a 401 when the account can no longer log on. A session logged on without
   * `logon` (the pool set it up again after a drop) is asked about by `login` and claimed.
   */
  account(session: PooledSession, login: string): string | Promise<string> {
    const known = this.sessions.get(session);
    if (known === undefined) return this.adopt(session, login);
    if (this.now() - known.checkedAt < this.maxAgeMs) return known.sid;
    known.checking ??= this.recheck(session, known).finally(() => { known.checking = undefined; });
    return known.checking;
  }

  private async recheck(session: PooledSession, known: SessionAccount): Promise<string> {
    const standing = await this.askOrLogOnAgain(session, known.unverifiedLogin === undefined ? { sid: known.sid } : { name: known.unverifiedLogin });
    if (known.unverifiedLogin !== undefined && standing !== null && standing.state === 'active') {
      // The first answer since a logon the directory could not be asked about: it sets the key and the baseline.
      await session.claim(standing.sid);
      Object.assign(known, { sid: standing.sid, passwordSetAt: standing.passwordSetAt, unverifiedLogin: undefined, checkedAt: this.now() });
      return known.sid;
    }
    if (standing === null || standing.state !== 'active' || standing.passwordSetAt !== known.passwordSetAt) {
      if (standing !== null && standing.passwordSetAt !== known.passwordSetAt) this.superseded.set(session.key, standing.passwordSetAt);
      this.sessions.delete(session);
      session.retire();
      throw new HttpError(401, 'session_ended', SESSION_ENDED_MESSAGE, this.challengeHeaders);
    }
    known.checkedAt = this.now();
    return known.sid;
  }

  private async adopt(session: PooledSession, login: string): Promise<string> {
    const standing = await this.askOrLogOnAgain(session, { name: login });
    if (standing === null || standing.state !== 'active') {
      session.retire();
      throw new HttpError(401, 'session_ended', SESSION_ENDED_MESSAGE, this.challengeHeaders);
    }
    await session.claim(standing.sid);
    this.sessions.set(session, { sid: standing.sid, passwordSetAt: standing.passwordSetAt, checkedAt: this.now() });
    return standing.sid;
  }

  /** The directory's answer; when it cannot answer, the session is ended and the caller logs on anew (LogonAgainError). */
  private async askOrLogOnAgain(session: PooledSession, query: { name: string } | { sid: string }): Promise<AccountStanding | null> {
    try {
      return await this.ask(query);
    } catch (err) {
      if (!(err instanceof DirectoryUnreachableError)) throw err;
      this.sessions.delete(session);
      session.retire();
      throw new LogonAgainError();
    }
  }
}
