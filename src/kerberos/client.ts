/**
 * A Kerberos client principal with its ticket cache in memory: one TGT and the service tickets obtained with it.
 * A ticket is used until half its lifetime or five minutes, whichever is less, is left, then replaced by a fresh
 * exchange with the client's own secret, so that no request presents a ticket that expires on the way (the
 * testbed's KDC already refuses a TGT with two minutes left, KRB_AP_ERR_TKT_EXPIRED, measured).
 * Concurrent callers asking for the same ticket share one exchange.
 */
import { LRUCache } from 'lru-cache';
import { asExchange, tgsExchange, type ClientSecret, type Credential, type KdcChannel } from './exchanges.js';
import { s4u2proxy, s4u2self } from './s4u.js';
import { sendToKdc, type KdcAddress } from './transport.js';

export interface KerberosSettings {
  realm: string;
  kdcs: readonly KdcAddress[];
  /** Timeout of one KDC exchange. */
  timeoutMs: number;
  /** Lifetime asked for in AS requests; the KDC's policy may shorten it. */
  ticketLifetimeSeconds: number;
}

const MAX_RENEW_MARGIN_MS = 5 * 60_000;
/**
 * Tickets one client keeps: a service account delegating for every user of a school would otherwise keep one per
 * user for ever; beyond this the least recently used are fetched again when next needed.
 */
const MAX_TICKETS = 4000;

/** Whether a ticket still has enough lifetime left to be presented. */
export function isFresh(cred: Credential, now: number): boolean {
  const lifetime = cred.endtime.getTime() - cred.authtime.getTime();
  const margin = Math.min(MAX_RENEW_MARGIN_MS, lifetime / 2);
  return cred.endtime.getTime() - now > margin;
}

/** Where an SMB logon gets its service tickets: a principal's own, or a user's through delegation. */
export interface TicketSource {
  serviceTicket(spn: string): Promise<Credential>;
}

/** A credential being fetched (state 'pending'), held, or whose exchange failed (fetched again on next use). */
interface Entry {
  promise: Promise<Credential>;
  state: 'pending' | 'held' | 'failed';
  cred?: Credential;
}

export class KerberosClient implements TicketSource {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_TICKETS });
  private readonly kdc: KdcChannel;
  /** How many messages this client sent to a KDC (tests see the cache work). */
  kdcMessages = 0;

  constructor(
    readonly settings: KerberosSettings,
    readonly user: string,
    private readonly secret: ClientSecret,
    private readonly options: { forwardable?: boolean; now?: () => number } = {},
  ) {
    this.kdc = {
      realm: settings.realm,
      send: (message) => {
        this.kdcMessages++;
        return sendToKdc(settings.kdcs, message, settings.timeoutMs);
      },
    };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The cached credential while fresh, else one exchange that every concurrent caller shares. */
  private cached(key: string, fetch: () => Promise<Credential>): Promise<Credential> {
    const entry = this.entries.get(key);
    if (entry?.state === 'pending') return entry.promise;
    if (entry?.state === 'held' && isFresh(entry.cred!, this.now())) return entry.promise;
    const next: Entry = { promise: fetch(), state: 'pending' };
    next.promise.then(
      (cred) => Object.assign(next, { state: 'held', cred }),
      () => (next.state = 'failed'),
    );
    this.entries.set(key, next);
    return next.promise;
  }

  /** The client's TGT. */
  ticketGrantingTicket(): Promise<Credential> {
    return this.cached('krbtgt', () =>
      asExchange(this.kdc, this.user, this.secret, {
        lifetimeSeconds: this.settings.ticketLifetimeSeconds,
        forwardable: this.options.forwardable ?? false,
        now: () => new Date(this.now()),
      }),
    );
  }

  /** A service ticket for `spn` (e.g. `cifs/DC1.edu.test`). */
  serviceTicket(spn: string): Promise<Credential> {
    return this.cached(`service:${spn.toLowerCase()}`, async () => tgsExchange(this.kdc, await this.ticketGrantingTicket(), spn, new Date(this.now())));
  }

  /**
   * Service tickets in `user`'s name, through this principal's constrained delegation (this client must be made
   * with `forwardable`): S4U2Proxy on the evidence ticket, which is the user's own ticket to this service when the
   * user presented one (HTTP Negotiate), else one S4U2Self obtains (protocol transition). Cached like the client's
   * own: the user's ticket vouched for the same name either way.
   */
  onBehalfOf(user: string, evidence?: Credential): TicketSource {
    return {
      serviceTicket: (spn) =>
        this.cached(`s4u:${user.toLowerCase()}:${spn.toLowerCase()}`, async () => {
          const tgt = await this.ticketGrantingTicket();
          const now = new Date(this.now());
          return s4u2proxy(this.kdc, tgt, evidence ?? (await s4u2self(this.kdc, tgt, user, now)), spn, now);
        }),
    };
  }
}
