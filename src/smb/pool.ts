/**
 * Connections and sessions pooled by (server, credentials), with lazy (re)connection and idle eviction. A dropped
 * connection fails its in-flight requests; the next operation builds a new connection, session and trees.
 * An endpoint may be claimed for an account (an opaque key the caller gives, a SID for the WebDAV users): claimed
 * endpoints are bounded per account and in total (`maxConnectionsPerAccount`, `maxConnections`), and the caller
 * that knows an account can no longer log on retires its endpoints. A closed session counts within the bounds until
 * the server has logged it off, since the server holds it until then.
 */
import { createHash } from 'node:crypto';
import { SmbError, isConnectionFailure } from './errors.js';
import { Connection } from './connection.js';
import type { DialectCode, DialectName } from './header.js';
import { Session, type Credentials } from './session.js';
import { Tree } from './tree.js';

export interface SmbServer {
  host: string;
  port?: number;
}

export interface SmbPoolOptions {
  /** Timeout of every request (default 30 s). */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Sessions unused this long are logged off and their connection closed (default 5 min). */
  idleTimeoutMs?: number;
  dialects?: readonly DialectCode[];
  /** Lowest dialect offered and accepted (default: all). */
  minDialect?: DialectName;
  /** Encrypt all traffic; servers that cannot are refused (default false). */
  requireEncryption?: boolean;
  /** Connections per (server, credentials); requests are spread over them (default 1). */
  connectionsPerServer?: number;
  /** Connections of the endpoints claimed for one account (default: no bound). */
  maxConnectionsPerAccount?: number;
  /** Connections of all claimed endpoints (default: no bound). */
  maxConnections?: number;
}

/** Claims refused because an account, or the pool, had its most connections and none of them was idle. */
export interface RefusedClaims {
  account: number;
  total: number;
}

/**
 * What a caller that keys sessions by account sees of one pooled session (an Endpoint): usable as a WeakMap key,
 * since the pool makes a new one when this one is evicted, dropped or retired.
 */
export interface PooledSession {
  /** The same for every session of one server and set of credentials (a password by its hash). */
  readonly key: string;
  /** Whether the server accepted the credentials (a session was set up); false again after `retire`. */
  readonly loggedOn: boolean;
  /**
   * Counts the session's connections for `account` before its first logon. Beyond a bound the least recently used
   * idle sessions of that account, then of anyone, are closed, and the claim resolves once the server has logged
   * them off; when all are busy, it rejects with an SmbError TOO_MANY_SESSIONS.
   */
  claim(account: string): Promise<void>;
  /** Logs off, closes, and leaves the pool: the next request with these credentials logs on anew. */
  retire(): void;
  /**
   * Keeps the session from being closed to make room or as idle until the returned function is called: the SMB
   * operations of one HTTP request (a PROPFIND's listing and its reads) are one use, between which it is not idle.
   */
  hold(): () => void;
}

/** What an endpoint asks of its pool. */
interface EndpointHost {
  /** Forgets the endpoint (not a newer one under its key) and closes it. */
  drop(ep: Endpoint): void;
  claim(ep: Endpoint, account: string): Promise<void>;
}

interface Live {
  connection: Connection;
  session: Session;
  trees: Map<string, Promise<Tree>>;
}

/** One lazily (re)established connection with its session and tree connects. */
class Channel {
  private live: Promise<Live> | null = null;

  constructor(
    private readonly server: SmbServer,
    private readonly credentials: Credentials,
    private readonly options: SmbPoolOptions,
    /** Told of each session set up, and of each one the server refused the credentials for. */
    private readonly onLogon: (accepted: boolean) => void,
  ) {}

  /** Resolves once this channel has a session (set up now, or earlier). */
  async ready(): Promise<void> {
    await this.connect();
  }

  private connect(): Promise<Live> {
    if (!this.live) {
      const attempt = (async (): Promise<Live> => {
        const connection = await Connection.connect({
          host: this.server.host,
          port: this.server.port,
          requestTimeoutMs: this.options.requestTimeoutMs,
          connectTimeoutMs: this.options.connectTimeoutMs,
          dialects: this.options.dialects,
          minDialect: this.options.minDialect,
          requireEncryption: this.options.requireEncryption,
        });
        connection.onceClosed(() => {
          if (this.live === attempt) this.live = null;
        });
        try {
          const session = await Session.setup(connection, this.credentials);
          this.onLogon(true);
          return { connection, session, trees: new Map() };
        } catch (err) {
          connection.close();
          if (err instanceof SmbError && err.code === 'LOGON_FAILURE') this.onLogon(false);
          throw err;
        }
      })();
      this.live = attempt;
      attempt.catch(() => {
        if (this.live === attempt) this.live = null;
      });
    }
    return this.live;
  }

  private tree(share: string, live: Live): Promise<Tree> {
    let tree = live.trees.get(share);
    if (!tree) {
      tree = Tree.connect(live.session, share);
      live.trees.set(share, tree);
      tree.catch(() => live.trees.delete(share));
    }
    return tree;
  }

  async localPort(): Promise<number | undefined> {
    return this.live ? (await this.live).connection.localPort : undefined;
  }

  /**
   * One try; a connection-level failure drops that connection (not a newer one) so the next try reconnects. A
   * Kerberos session whose ticket runs out is re-authenticated first, so that the server never ends it under a request.
   */
  async attempt<T>(share: string, op: (tree: Tree) => Promise<T>): Promise<T> {
    const live = this.connect();
    try {
      await (await live).session.renewIfDue();
      return await op(await this.tree(share, await live));
    } catch (err) {
      if (isConnectionFailure(err) && this.live === live) {
        this.live = null;
        (await live.catch(() => null))?.connection.close();
      }
      throw err;
    }
  }

  /** Logs off (best effort) and closes the connection. */
  async close(): Promise<void> {
    const live = this.live;
    this.live = null;
    const l = await live?.catch(() => null);
    if (!l) return;
    try {
      await l.session.logoff();
    } catch {
      // the connection may already be gone; closing below is what matters
    }
    l.connection.close();
  }
}

/**
 * The connections to one server for one set of credentials. Operations are spread round-robin over
 * `connectionsPerServer` channels (one smbd process serves each connection).
 */
export class Endpoint implements PooledSession {
  private readonly channels: Channel[];
  private nextChannel = 0;
  private inFlight = 0;
  /** Uses held by callers across several operations (hold). */
  private held = 0;
  private pendingLogon: Promise<void> | undefined;
  /** Whether the server ever accepted these credentials (a session was set up). */
  loggedOn = false;
  lastUsed = Date.now();
  /** The account the endpoint was claimed for, if any. */
  account: string | undefined;

  /** `host.drop`: the pool forgets this endpoint (the server refused its credentials, its first logon failed, it was retired). */
  constructor(
    readonly key: string,
    readonly server: SmbServer,
    readonly credentials: Credentials,
    options: SmbPoolOptions,
    private readonly host: EndpointHost,
  ) {
    const count = Math.max(1, Math.floor(options.connectionsPerServer ?? 1));
    const onLogon = (accepted: boolean) => {
      if (accepted) this.loggedOn = true;
      else this.host.drop(this);
    };
    this.channels = Array.from({ length: count }, () => new Channel(server, credentials, options, onLogon));
  }

  get idle(): boolean {
    return this.inFlight === 0 && this.held === 0;
  }

  /**
   * Sets up the first session, once for all concurrent callers: `guard` runs the setup (it may refuse without
   * running it, e.g. a login throttle) and is not called when a session exists already. When that first logon
   * fails, the endpoint leaves the pool, so that credentials the server never accepted keep nothing pooled.
   */
  logon(guard: (setup: () => Promise<void>) => Promise<void>): Promise<void> {
    if (this.loggedOn) return Promise.resolve();
    this.pendingLogon ??= guard(() => this.channels[0]!.ready())
      .catch((err: unknown) => {
        if (!this.loggedOn) this.host.drop(this);
        throw err;
      })
      .finally(() => { this.pendingLogon = undefined; });
    return this.pendingLogon;
  }

  /** Connections this endpoint may open, as the bounds count them. */
  get connections(): number {
    return this.channels.length;
  }

  claim(account: string): Promise<void> {
    return this.host.claim(this, account);
  }

  retire(): void {
    this.loggedOn = false;
    this.host.drop(this);
  }

  hold(): () => void {
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.lastUsed = Date.now();
    };
  }

  /** Local TCP port of the first channel's connection (undefined when not connected). */
  localPort(): Promise<number | undefined> {
    return this.channels[0]!.localPort();
  }

  /**
   * Runs an operation on the share's tree. Idempotent operations are retried once on a fresh connection when
   * the connection failed underneath them.
   */
  async run<T>(share: string, idempotent: boolean, op: (tree: Tree) => Promise<T>): Promise<T> {
    const channel = this.channels[this.nextChannel++ % this.channels.length]!;
    this.inFlight++;
    this.lastUsed = Date.now();
    try {
      try {
        return await channel.attempt(share, op);
      } catch (err) {
        if (!idempotent || !isConnectionFailure(err)) throw err;
        return await channel.attempt(share, op);
      }
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.channels.map((c) => c.close()));
  }
}

/** Connections the endpoints may open, as the bounds count them. */
function connectionsOf(endpoints: readonly Endpoint[]): number {
  return endpoints.reduce((sum, ep) => sum + ep.connections, 0);
}

export class SmbPool implements EndpointHost {
  private readonly endpoints = new Map<string, Endpoint>();
  /** Endpoints left the pool whose sessions the server has not logged off yet: they still count within the bounds. */
  private readonly closing = new Map<Endpoint, Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  readonly options: SmbPoolOptions;
  readonly refusedClaims: RefusedClaims = { account: 0, total: 0 };

  constructor(options: SmbPoolOptions = {}) {
    this.options = options;
    const idle = options.idleTimeoutMs ?? 5 * 60_000;
    this.timer = setInterval(() => void this.evictIdle(idle), Math.max(1000, Math.min(idle / 2, 30_000)));
    this.timer.unref();
  }

  endpoint(server: SmbServer, credentials: Credentials): Endpoint {
    return this.endpointAt(this.keyOf(server, credentials), server, credentials);
  }

  /**
   * The pool key of a server and credentials (the password by its hash). Computed once by a caller that looks its
   * endpoint up for every operation (SmbShare), so that a request hashes the password once, not once an operation.
   */
  keyOf(server: SmbServer, credentials: Credentials): string {
    if (!server.host) throw new SmbError('INVALID_ARGUMENT', 'SMB server host is empty');
    const secret = createHash('sha256').update(credentials.password).digest('hex');
    // Kerberos and NTLM logons of one account are different sessions (the first may fail where the second works).
    const { kerberos } = credentials;
    const mechanism = kerberos
      ? `krb5 ${kerberos.spn}${kerberos.fallbackToNtlm ? ' or ntlm' : ''}${kerberos.delegatedBy === undefined ? '' : ` via ${kerberos.delegatedBy}`}`
      : 'ntlm';
    return [server.host.toLowerCase(), server.port ?? 445, credentials.domain.toUpperCase(), credentials.user.toLowerCase(), secret, mechanism].join('|');
  }

  /** The endpoint under `key` (keyOf these server and credentials), made when there is none. */
  endpointAt(key: string, server: SmbServer, credentials: Credentials): Endpoint {
    let ep = this.endpoints.get(key);
    if (!ep) {
      ep = new Endpoint(key, server, credentials, this.options, this);
      this.endpoints.set(key, ep);
    }
    return ep;
  }

  /** Forgets an endpoint (not a newer one under the same key) and closes its connections. */
  drop(ep: Endpoint): void {
    if (this.endpoints.get(ep.key) !== ep) return;
    this.endpoints.delete(ep.key);
    this.closing.set(ep, ep.close().finally(() => this.closing.delete(ep)));
  }

  /**
   * Counts `ep` for `account` within the bounds, closing the least recently used idle sessions (of the account, then
   * of anyone) that are over them, and resolves once the server has logged off every closed session that still
   * counts against a bound `ep` needs room under: until then the server holds it (the account would have one
   * session too many there for a moment). Sessions still logging on count (so that parallel logons cannot pass a
   * bound together) but are not closed.
   */
  async claim(ep: Endpoint, account: string): Promise<void> {
    const claimed = () => [...this.endpoints.values()].filter((other) => other !== ep && other.account !== undefined);
    const { maxConnectionsPerAccount = Infinity, maxConnections = Infinity } = this.options;
    const ofAccount = () => claimed().filter((other) => other.account === account);
    const accountRoom = maxConnectionsPerAccount - ep.connections;
    const totalRoom = maxConnections - ep.connections;
    if (!this.makeRoom(ofAccount, accountRoom)) {
      this.refusedClaims.account++;
      throw new SmbError('TOO_MANY_SESSIONS', `this account has ${maxConnectionsPerAccount} SMB connections in use, the most one account may have`);
    }
    if (!this.makeRoom(claimed, totalRoom)) {
      this.refusedClaims.total++;
      throw new SmbError('TOO_MANY_SESSIONS', `the service has ${maxConnections} SMB connections in use, the most it keeps`);
    }
    ep.account = account;
    // The closed sessions that would put a bound over its room at the server while it still holds them.
    const overRoom = (open: Endpoint[], closed: Endpoint[], room: number) => (connectionsOf([...open, ...closed]) > room ? closed : []);
    const closed = [...this.closing.keys()].filter((other) => other.account !== undefined);
    const awaited = new Set([
      ...overRoom(ofAccount(), closed.filter((other) => other.account === account), accountRoom),
      ...overRoom(claimed(), closed, totalRoom),
    ]);
    await Promise.all([...awaited].map((other) => this.closing.get(other)));
  }

  /** Closes idle, logged-on sessions of `among`, least recently used first, until their connections are at most `room`. */
  private makeRoom(among: () => Endpoint[], room: number): boolean {
    const evictable = among().filter((other) => other.idle && other.loggedOn).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const other of evictable) {
      if (connectionsOf(among()) <= room) break;
      this.drop(other);
    }
    return connectionsOf(among()) <= room;
  }

  get size(): number {
    return this.endpoints.size;
  }

  async evictIdle(idleTimeoutMs: number): Promise<void> {
    const now = Date.now();
    for (const ep of [...this.endpoints.values()]) {
      if (ep.idle && now - ep.lastUsed >= idleTimeoutMs) {
        this.drop(ep);
        await this.closing.get(ep);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.endpoints.values()];
    this.endpoints.clear();
    await Promise.all([...all.map((ep) => ep.close()), ...this.closing.values()]);
  }
}
