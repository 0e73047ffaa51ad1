// What every WebDAV method handler works with: the thread's DavService (SMB
// sessions, dav-state, the post-write hook, the route wrapper that turns
// errors into answers) and the request's DavCall (where it points, who makes
// it, the share as that user, the checks before a write, which are
// src/webdav/write-check.ts's). Who makes it: the user of the Basic
// credentials, or the user a trusted caller names in X-Service-User, reached by
// constrained delegation (src/webdav/on-behalf.ts). The method files (read, write,
// copy-move, lock) import this module and nothing of each other;
// routes.ts registers them.
import type { Logger } from '../../common/logger.js';
import type { Config } from '../../config/index.js';
import { parseBasicAuth } from '../../auth/basic.js';
import { isNegotiate, type NegotiateAuth } from '../../auth/negotiate.js';
import { DirectoryError } from '../../ldap/connection.js';
import type { LogonAccountSource } from '../../ldap/directory.js';
import type { DavStateKeeper } from '../state-keeper.js';
import { loginDomain } from '../../ldap/from-config.js';
import { type LoginDomain, loginBudget, ntlmLogon, parseLoginName } from '../../ldap/login-name.js';
import { challengeHeader, DAV_CHALLENGE, negotiateChallenge } from '../../http/challenges.js';
import { HttpError } from '../../http/http-error.js';
import { errorWithoutMessage } from '../../common/logger.js';
import type { HttpExchange } from '../../http/exchange.js';
import type { Router } from '../../http/router.js';
import type { PeerLink } from '../../runtime/actor.js';
import type { ServiceSecrets } from '../../runtime/control.js';
import { ActorUnavailableError, type Remote } from '../../runtime/rpc.js';
import { delegableTicketHolder, delegationHttpError, namedUser } from '../on-behalf.js';
import { SERVICE_USER_HEADER } from '../../viewer/service-user.js';
import type { ViewerAnswerCache } from '../../viewer/viewer-cache.js';
import { resolverViewerCache, type ViewerSource } from '../../viewer/resolver-answers.js';
import { SmbError, type Credentials, type SmbClient, type SmbShare } from '../../smb/index.js';
import { guardedLogin, LoginThrottledError, remoteLoginGuard, THROTTLE_UNAVAILABLE_MESSAGE, throttledHttpError, type LoginGuard, type LoginGuardProtocol } from '../../auth/login-guard.js';
import { DAV_PREFIX, hrefOf, parseDavPath, parentPath, type DavLocation, type DavResource } from '../dav-path.js';
import { DAV_CHALLENGE_HEADER, davHttpError } from '../errors.js';
import { parseIfHeader, type IfList } from '../if-header.js';
import { MULTISTATUS_TYPE, multistatus, statusResponse } from '../multistatus.js';
import { hasPreconditions } from '../preconditions.js';
import { LeaseQueue } from '../leases.js';
import type { WriteTarget } from '../locks.js';
import { destinationPath } from '../requests.js';
import { refuseShortNames, type LongNameLookup } from '../short-names.js';
import { DavStateHints } from '../state-hint.js';
import { DavStorage } from '../storage.js';
import type { MemberFailure } from '../tree-ops.js';
import { checkWrite, type WriteCheck, type WriteCheckOptions } from '../write-check.js';
import type { WriteRight } from '../write-rights.js';
import { wikiWriteViolation } from '../../wiki/layout.js';
import type { PageChange, PageChangeSink } from '../../wiki/page-change.js';
import { smbClientFromConfig } from '../../logon/smb-client.js';
import { SmbLogons } from '../../logon/smb-logons.js';
import { AccountSessions, DirectoryUnreachableError, LogonAgainError, type AccountQuestion } from '../../logon/account-sessions.js';
import { unavailableAs503 } from '../../runtime/unavailable-as-503.js';

/** A refused connection answers at once; a server that does not answer at all is given this long. */
const CONNECT_TIMEOUT_MS = 3_000;

export interface DavDeps {
  config: Config;
  davState: Remote<DavStateKeeper>;
  reconciler: Remote<PageChangeSink>;
  /**
   * Holds the login throttle, asked before a new SMB session is set up with a user's credentials, and decides whom
   * a trusted caller may name (X-Service-User).
   */
  resolver: Remote<LoginGuardProtocol & ViewerSource & LogonAccountSource>;
  resolverLink: PeerLink;
  /** The delegation account's keytab (kerberos.delegation). */
  secrets: Pick<ServiceSecrets, 'delegationKeytab'>;
  /** HTTP Negotiate (kerberos.delegation.http_spn), or null when it is not configured. */
  negotiate: NegotiateAuth | null;
  log: Logger;
}

type DavHandler = (call: DavCall) => Promise<void>;

/** What every WebDAV route shares: the SMB sessions of this thread, dav-state, the post-write hook. */
export class DavService {
  readonly smb: SmbClient;
  readonly hints: DavStateHints;
  /**
   * Write leases held in this thread when it is the only http-front (every write of the service passes
   * here, so they serialize as well as dav-state's would, without the hop); undefined with several fronts.
   */
  readonly localLeases: LeaseQueue | undefined;
  readonly logins: LoginGuard;
  /** How login names are read (login-name.ts, the same reading as the throttle's and the wiki's). */
  readonly names: LoginDomain;
  /** The SMB credentials of each user's logon (NTLM or Kerberos, as smb.auth says), with their ticket caches. */
  readonly logons: SmbLogons;
  /** The account (SID) of each pooled user session, asked again every smb.session_max_age. */
  readonly accounts: AccountSessions;
  /** The ldap-resolver's answers about trusted callers and the users they name, as this thread reuses them. */
  readonly viewers: ViewerAnswerCache;
  /** The WWW-Authenticate challenge of a 401: Negotiate first where it is configured, then Basic. */
  readonly challenge: string;
  private readonly shares: string[];

  constructor(readonly deps: DavDeps) {
    const { smb } = deps.config;
    this.smb = smbClientFromConfig(smb, { connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, smb.request_timeout) });
    this.logons = new SmbLogons(deps.config, deps.secrets);
    this.viewers = resolverViewerCache(deps.resolver, deps.resolverLink);
    this.challenge = deps.negotiate ? negotiateChallenge(DAV_CHALLENGE) : DAV_CHALLENGE;
    this.hints = new DavStateHints(deps.davState);
    this.localLeases = deps.config.workers.http_front === 1 ? new LeaseQueue(2 * smb.request_timeout) : undefined;
    this.shares = smb.shares.map((s) => s.name);
    this.logins = remoteLoginGuard(deps.resolver, deps.log);
    this.names = loginDomain(deps.config);
    this.accounts = new AccountSessions(resolverAccounts(deps.resolver, deps.log), smb.session_max_age, DAV_CHALLENGE_HEADER);
  }

  get davState(): Remote<DavStateKeeper> {
    return this.deps.davState;
  }

  /**
   * A route for one method; `body` says whether it takes an XML body, streams one (PUT) or takes none. An XML body
   * may take `xmlBodyLimit` bytes, http.max_body unless the method bounds it tighter.
   */
  route(router: Router, method: string, handler: DavHandler, body: 'none' | 'xml' | 'stream' = 'none', xmlBodyLimit = this.deps.config.http.max_body): void {
    const options = body === 'xml' ? { bodyLimit: xmlBodyLimit } : body === 'stream' ? { streamBody: true } : {};
    router.add(method, `${DAV_PREFIX}*`, async (ex) => {
      let call: DavCall | undefined;
      try {
        call = this.open(ex);
        await call.logon();
        await call.refuseShortNames();
        await handler(call);
      } catch (err) {
        let answer = davHttpError(err, { server: call?.server ?? '', share: call?.location.share ?? '', path: call?.path ?? ex.path });
        if (!answer) throw err;
        // Every 401 offers Negotiate where it is configured, whichever layer made it.
        if (answer.status === 401 && this.deps.negotiate) answer = new HttpError(401, answer.code, answer.message, { ...answer.headers, ...challengeHeader(this.challenge) }, answer.logDetail);
        if (answer.status >= 500) this.deps.log.warn({ err: errorWithoutMessage(err), method: ex.method, outcome: answer.code }, 'WebDAV request failed');
        throw answer;
      } finally {
        call?.end();
      }
    }, options);
  }

  /** Sends post-write hook messages; they never delay or fail the response. */
  hook(changes: readonly PageChange[]): void {
    for (const change of changes) {
      this.deps.reconciler.pageChanged(change).catch((err: unknown) => {
        this.deps.log.warn({ err: errorWithoutMessage(err) }, 'post-write hook not delivered; the reconciler will catch up');
      });
    }
  }

  /** The share path a request URI (or If header tag, Destination) names on this service, if any. */
  locate(rawPath: string): DavLocation | undefined {
    return parseDavPath(rawPath, this.shares);
  }

  close(): Promise<void> {
    return this.smb.close();
  }

  private open(ex: HttpExchange): DavCall {
    const location = this.locate(ex.path);
    if (!location) throw new HttpError(404, 'unknown_share', `no share is configured under ${ex.path.split('/').slice(0, 3).join('/')}/`);
    const { smb } = this.deps.config;
    const server = smb.shares.find((s) => s.name === location.share)?.server ?? smb.server!;
    return new DavCall(this, ex, location, server);
  }
}

/** One WebDAV request: where it points, who makes it, and the SMB share as that user. */
export class DavCall {
  private storageOfUser: DavStorage | undefined;
  private share: SmbShare | undefined;
  private principalName: string | undefined;
  private releaseSession: (() => void) | undefined;
  private ifLists: IfList[] | undefined | null = null;

  constructor(readonly svc: DavService, readonly ex: HttpExchange, readonly location: DavLocation, readonly server: string) {}

  get path(): string {
    return this.location.path;
  }

  /**
   * The SID of the account the request's session logged on as (account-sessions.ts): who owns the locks this request
   * takes and whose dead-property budget it spends, whichever spelling of the account's name it logged on with.
   * Known once `logon` has run with credentials.
   */
  get principal(): string {
    if (this.principalName === undefined) throw new HttpError(401, 'unauthorized', 'this request needs credentials', DAV_CHALLENGE_HEADER);
    return this.principalName;
  }

  /** The share opened with the request's Basic credentials; 401 without them. */
  get storage(): DavStorage {
    return this.storageOfUser ?? this.authenticate();
  }

  /**
   * Sets up the user's SMB session before the handler runs. A session this thread already pools passes at once;
   * a new one (a DC logon) first passes the login throttle, counted under the name's one failure budget
   * (loginBudget): 429 when it refuses. Without credentials nothing happens here (the handler answers 401 where it
   * needs them); a malformed name is a 401 before anything is counted or asked.
   */
  async logon(): Promise<void> {
    try {
      await this.logonOnce();
    } catch (err) {
      // The session was due for an account check the directory could not answer: a new logon, which the DC checks
      // itself, is that check (account-sessions.ts).
      if (!(err instanceof LogonAgainError)) throw err;
      await this.logonOnce();
    }
  }

  private async logonOnce(): Promise<void> {
    const authorization = this.ex.headers['authorization'];
    if (isNegotiate(authorization)) return this.logonNegotiated(authorization!);
    const auth = parseBasicAuth(authorization);
    if (!auth.ok) return;
    const serviceUser = this.ex.headers[SERVICE_USER_HEADER];
    if (serviceUser !== undefined) return this.logonOnBehalf(auth, serviceUser);
    this.authenticate();
    const attempt = { account: loginBudget(auth.user), address: this.ex.clientAddress };
    const share = this.share!;
    try {
      await share.logon((setup) => guardedLogin(this.svc.logins, attempt, () => this.svc.accounts.logon(share.session(), auth.user, () => setup().catch(refusedSetup)), isLogonFailure));
      await this.identify(auth.user);
    } catch (err) {
      if (err instanceof LoginThrottledError) throw throttledHttpError(err);
      if (err instanceof ActorUnavailableError) {
        throw new HttpError(503, 'service_unavailable', THROTTLE_UNAVAILABLE_MESSAGE, { 'retry-after': '1' });
      }
      throw err;
    }
  }

  /**
   * A client holding a ticket for the service (HTTP Negotiate): the ticket is checked here, then whether the
   * directory lets the service delegate for its holder, and it is the evidence with which S4U2Proxy obtains the
   * user's ticket for the file server. No password is involved, so the session
   * setup passes no login throttle. The AP-REP of mutual authentication goes with whatever the handler answers.
   */
  private async logonNegotiated(authorization: string): Promise<void> {
    const { svc } = this;
    const { negotiate } = svc.deps;
    if (!negotiate) {
      throw new HttpError(401, 'negotiate_not_configured', 'this service does not accept Negotiate; send Basic credentials', DAV_CHALLENGE_HEADER,
        'a client sent Negotiate, which needs kerberos.delegation.http_spn (not set)');
    }
    const client = await negotiate.authenticate(authorization, svc.challenge);
    if (client.wwwAuthenticate) this.ex.commonHeaders['www-authenticate'] = client.wwwAuthenticate;
    const account = await delegableTicketHolder(svc.viewers, client, this.ex.clientAddress).catch((err: unknown) => {
      throw unavailableAs503(err);
    });
    try {
      this.open(svc.logons.delegated(this.server, account, { evidence: client.evidence, sid: client.sid }));
      await this.delegatedLogon(account);
    } catch (err) {
      throw unavailableAs503(delegationHttpError(err, 'Negotiate') ?? err);
    }
  }

  /**
   * A trusted caller's request for the user it names: the wiki's rules first, then the user's SMB session by
   * delegation. No password is involved (the caller's own was checked by the ldap-resolver, under the throttle),
   * so the session setup passes no throttle; the KDC's refusals are named (on-behalf.ts).
   */
  private async logonOnBehalf(caller: { user: string; password: string }, serviceUserHeader: string): Promise<void> {
    const { svc, ex } = this;
    const request = { user: caller.user, password: caller.password, serviceUserHeader, clientAddress: ex.clientAddress };
    const account = await namedUser(svc.viewers, request, svc.logons.delegates).catch((err: unknown) => {
      throw unavailableAs503(err);
    });
    try {
      this.open(svc.logons.delegated(this.server, account));
      await this.delegatedLogon(account);
    } catch (err) {
      throw unavailableAs503(delegationHttpError(err) ?? err);
    }
  }

  /** The session of a delegated logon, as `account` (a sAMAccountName), under the same account checks as a password's. */
  private async delegatedLogon(account: string): Promise<void> {
    const share = this.share!;
    await share.logon((setup) => this.svc.accounts.logon(share.session(), account, setup));
    await this.identify(account);
  }

  /**
   * Sets `principal` to the SID of the session's account, asking the directory again when the last check is stale,
   * and holds the session until `end`: the pool must not close it to make room between this request's operations.
   */
  private async identify(login: string): Promise<void> {
    const session = this.share!.session();
    const sid = this.svc.accounts.account(session, login);
    this.principalName = typeof sid === 'string' ? sid : await sid;
    this.releaseSession = session.hold();
  }

  /** The request is answered: its session may be closed as idle again. */
  end(): void {
    this.releaseSession?.();
  }

  private authenticate(): DavStorage {
    if (this.storageOfUser) return this.storageOfUser;
    const auth = parseBasicAuth(this.ex.headers['authorization']);
    if (!auth.ok) throw new HttpError(401, 'unauthorized', auth.message, DAV_CHALLENGE_HEADER);
    let logon: { domain: string; user: string };
    try {
      logon = ntlmLogon(parseLoginName(auth.user, this.svc.names), this.svc.names);
    } catch (err) {
      if (!(err instanceof DirectoryError)) throw err;
      throw new HttpError(401, 'unauthorized', err.message, DAV_CHALLENGE_HEADER);
    }
    const { domain, user } = logon;
    return this.open(this.svc.logons.user(this.server, domain, user, auth.password));
  }

  /** The share with these SMB credentials. */
  private open(credentials: Credentials): DavStorage {
    this.share = this.svc.smb.share({ host: this.server, port: this.svc.deps.config.smb.port, ...credentials, share: this.location.share });
    this.storageOfUser = new DavStorage(this.share, this.location.share);
    return this.storageOfUser;
  }

  /**
   * 400 when the request names a file by its 8.3 short name, in its path or in the Destination of a COPY or MOVE:
   * locks, the wiki's layout rules and the same-resource checks know a file by its long name (short-names.ts).
   * Runs before every handler, so nothing has changed when it refuses.
   */
  async refuseShortNames(): Promise<void> {
    const longNamesOf: LongNameLookup = (folder, name) => this.storage.longNamesOf(folder, name);
    await refuseShortNames(this.path, longNamesOf);
    if (this.ex.method !== 'COPY' && this.ex.method !== 'MOVE') return;
    const destination = this.svc.locate(destinationPath(this.ex.headers['destination']));
    // A Destination on another share is refused by the handler, before it is looked at.
    if (destination?.share === this.location.share) await refuseShortNames(destination.path, longNamesOf);
  }

  /**
   * 403 unless the file server grants this user `right` on `path`, asked now as that user (see write-rights.ts):
   * for state the file server does not keep itself (locks, dead properties), and before a step that could not be
   * undone if a later one were refused.
   */
  async requireRight(path: string, right: WriteRight): Promise<void> {
    if (!(await this.grants(path, right))) throw this.refused(path, right);
  }

  /** Whether the file server grants this user `right` on `path`, asked now as that user; other failures throw. */
  async grants(path: string, right: WriteRight): Promise<boolean> {
    try {
      await this.storage.checkAccess(path, right.access);
      return true;
    } catch (err) {
      if (err instanceof SmbError && err.code === 'ACCESS_DENIED') return false;
      throw err;
    }
  }

  /** The 403 of a request that needs `right` on `path`, which the file server denies this user. */
  refused(path: string, right: WriteRight): HttpError {
    return new HttpError(403, 'access_denied', `${this.ex.method} needs the right to ${right.means} on '${path || '/'}', which the file server denies you`);
  }

  resource(path = this.path): DavResource {
    return { share: this.location.share, path };
  }

  href(path: string, collection: boolean): string {
    return hrefOf(this.location.share, path, collection);
  }

  /** The If header's lists; undefined without one. */
  ifHeader(): IfList[] | undefined {
    if (this.ifLists === null) {
      const header = this.ex.headers['if'];
      this.ifLists = header === undefined ? undefined : parseIfHeader(header);
    }
    return this.ifLists;
  }

  /** Whether the request carries conditions (If, If-Match, ...): such writes are serialized per resource. */
  get conditional(): boolean {
    return this.ifHeader() !== undefined || hasPreconditions(this.ex.headers);
  }

  /** The checks before a write (see src/webdav/write-check.ts); call `release` when the write is done. */
  checkWrite(targets: WriteTarget[], options: WriteCheckOptions = {}): Promise<WriteCheck> {
    return checkWrite(this.svc, this, targets, options);
  }
}

/** The parent of a path as a depth-0 write target (adding or removing a member changes it). */
export function parentTarget(call: DavCall, path: string): WriteTarget {
  return { resource: call.resource(parentPath(path)), depth: '0' };
}

/**
 * The ldap-resolver's answers about a logon's account. A directory it cannot reach (or a resolver restarting) is a
 * DirectoryUnreachableError, keyed by the login name's failure budget: the DC's own check decides then. A service
 * without a directory (WebDAV only: no indexer password, or no ldap.base_dn) keys a session by that budget too
 * (every spelling of an account name alike, a principal name apart) and cannot tell when an account ends: said once
 * in the log.
 */
function resolverAccounts(resolver: Remote<LogonAccountSource>, log: Logger): AccountQuestion {
  let warned = false;
  const byName = (query: { name: string } | { sid: string }) => ('name' in query ? `name:${loginBudget(query.name)}` : query.sid);
  return async (query) => {
    let answer: Awaited<ReturnType<LogonAccountSource['logonAccount']>>;
    try {
      answer = await resolver.logonAccount(query);
    } catch (err) {
      if (!(err instanceof ActorUnavailableError)) throw err;
      throw new DirectoryUnreachableError(byName(query), err.message);
    }
    if ('unavailable' in answer) throw new DirectoryUnreachableError(byName(query), answer.unavailable);
    if ('unconfigured' in answer) {
      if (!warned) log.warn({ reason: answer.unconfigured }, 'WebDAV sessions are keyed by login name and not checked against the directory');
      warned = true;
      return { sid: byName(query), state: 'active', passwordSetAt: '' };
    }
    return answer.account;
  };
}

function isLogonFailure(err: unknown): boolean {
  return err instanceof SmbError && err.code === 'LOGON_FAILURE';
}

/**
 * Samba answers a session setup as `user@realm` with a wrong password NT_STATUS_NOT_FOUND (LOGON_FAILURE when no
 * account has that name): a refused logon all the same. Left as it was, the throttle took the attempt back (an
 * outcome that says nothing) and the client got a 404, so guessing over WebDAV in UPN form was never counted.
 */
function refusedSetup(err: unknown): never {
  if (err instanceof SmbError && err.code === 'NOT_FOUND') throw new SmbError('LOGON_FAILURE', 'the file server refused the logon (NT_STATUS_NOT_FOUND)', { cause: err });
  throw err;
}

/** 403 when the wiki layout forbids creating `kind` at `path`. */
export function checkWikiLayout(path: string, kind: 'file' | 'folder'): void {
  const violation = wikiWriteViolation(path, kind);
  if (violation) throw new HttpError(403, violation.code, violation.message);
}

/** Locks and dead properties of a resource that is gone. */
export async function forgetResource(call: DavCall, svc: DavService, path: string): Promise<void> {
  const counts = await svc.hints.counts();
  if (counts.locks + counts.propertyResources > 0) await svc.davState.removed(call.resource(path));
}

/** 207 with the members that could not be handled. */
export function sendFailures(call: DavCall, failures: readonly MemberFailure[]): void {
  const responses = failures.map((f) => {
    const status = davHttpError(f.error, { server: call.server, share: call.location.share, path: f.path })?.status ?? 500;
    return statusResponse(call.href(f.path, f.isCollection), status);
  });
  call.ex.send(207, multistatus(responses), { 'content-type': MULTISTATUS_TYPE });
}
