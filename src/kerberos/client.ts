/**
 * A Kerberos client principal with its ticket cache in memory: one TGT and the service tickets obtained with it.
 * A ticket is used until half its lifetime or five minutes, whichever is less, is left, then replaced by a fresh
 * exchange with the client's own secret, so that no request presents a ticket that expires on the way. A TGT is
 * replaced by then, and at the latest with TGT_MIN_LEFT_MS left: the testbed's KDC (Samba 4.17) refuses a TGS
 * request with a TGT that has two minutes or less left (KRB_AP_ERR_TKT_EXPIRED, measured); so a TGT is asked for
 * MIN_TGT_LIFETIME_S at least, and shorter lifetimes apply to the service tickets.
 * Concurrent callers asking for the same ticket share one exchange.
 */
import { LRUCache } from 'lru-cache';
import { asExchange, tgsExchange, type ClientSecret, type Credential, type KdcChannel } from './exchanges.js';
import { kdcsFromDns, type DnsServer } from './kdc-dns.js';
import { s4u2proxy, s4u2self } from './s4u.js';
import { sendToKdc, type KdcAddress } from './transport.js';

export interface KerberosSettings {
  realm: string;
  /** The KDCs to try in order; absent: the realm's from DNS SRV records (kdc-dns.ts). */
  kdcs?: readonly KdcAddress[];
  /** The DNS servers asked for those records; absent or empty: the system's. */
  dnsServers?: readonly DnsServer[];
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

const TGT_MIN_LEFT_MS = 150_000;
const MIN_TGT_LIFETIME_S = 300;

/** The KDCs to try: the configured ones, else those DNS names for the realm. */
export async function locateKdcs(settings: KerberosSettings): Promise<readonly KdcAddress[]> {
  return settings.kdcs ?? kdcsFromDns(settings.realm, settings.dnsServers ?? [], settings.timeoutMs);
}

/**
 * When a ticket stops being presented: half its lifetime or five minutes, whichever is less, before it ends, and at
 * least `minLeftMs` before. Its lifetime runs from its starttime: counted from the authtime, which a service ticket
 * takes from its TGT, a short-lived service ticket had with a TGT older than the ticket's lifetime was due at once,
 * and a session re-authenticated with it waited for the next try while the file server ended it (a change watch lost
 * with NETWORK_SESSION_EXPIRED in the renewal test, 10 s tickets).
 */
export function renewalTime(cred: Credential, minLeftMs = 0): number {
  const lifetime = cred.endtime.getTime() - cred.starttime.getTime();
  return cred.endtime.getTime() - Math.max(minLeftMs, Math.min(MAX_RENEW_MARGIN_MS, lifetime / 2));
}

/** The longest wait after a failed renewal (no KDC answered) before the next try. */
const RENEWAL_RETRY_MS = 10_000;
/** The shortest: a ticket about to end is not tried again in a busy loop. */
const MIN_RENEWAL_RETRY_MS = 500;

/**
 * How long after a failed renewal the next is tried: RENEWAL_RETRY_MS, or half of what is left of the ticket when
 * that is less, so that a short ticket gets more tries before it ends; never under MIN_RENEWAL_RETRY_MS.
 */
export function renewalRetryDelay(cred: Credential, now: number): number {
  return Math.max(MIN_RENEWAL_RETRY_MS, Math.min(RENEWAL_RETRY_MS, (cred.endtime.getTime() - now) / 2));
}

/** Whether a ticket still has enough lifetime left to be presented. */
export function isFresh(cred: Credential, now: number, minLeftMs = 0): boolean {
  return now < renewalTime(cred, minLeftMs);
}

/** Where an SMB logon gets its service tickets: a principal's own, or a user's through delegation. */
export interface TicketSource {
  serviceTicket(spn: string): Promise<Credential>;
}

/** A user's own ticket to this service (HTTP Negotiate), the evidence S4U2Proxy presents, and the SID its PAC names. */
export interface PresentedTicket {
  evidence: Credential;
  sid: string;
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

  constructor(
    readonly settings: KerberosSettings,
    readonly user: string,
    private readonly secret: ClientSecret,
    private readonly options: { forwardable?: boolean; now?: () => number } = {},
  ) {
    this.kdc = {
      realm: settings.realm,
      send: async (message) => {
        const kdcs = await locateKdcs(settings);
        return sendToKdc(kdcs, message, settings.timeoutMs);
      },
    };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The cached credential while fresh, else one exchange that every concurrent caller shares. */
  private cached(key: string, fetch: () => Promise<Credential>, minLeftMs = 0): Promise<Credential> {
    const entry = this.entries.get(key);
    if (entry?.state === 'pending') return entry.promise;
    if (entry?.state === 'held' && isFresh(entry.cred!, this.now(), minLeftMs)) return entry.promise;
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
    return this.cached(
      'krbtgt',
      () =>
        asExchange(this.kdc, this.user, this.secret, {
          lifetimeSeconds: Math.max(this.settings.ticketLifetimeSeconds, MIN_TGT_LIFETIME_S),
          forwardable: this.options.forwardable ?? false,
          now: () => new Date(this.now()),
        }),
      TGT_MIN_LEFT_MS,
    );
  }

  /** A service ticket for `spn` (e.g. `cifs/DC1.edu.test`), for the lifetime of the settings at most. */
  serviceTicket(spn: string): Promise<Credential> {
    return this.cached(`service:${spn.toLowerCase()}`, async () => {
      const now = this.now();
      return tgsExchange(this.kdc, await this.ticketGrantingTicket(), spn, new Date(now), new Date(now + this.settings.ticketLifetimeSeconds * 1000));
    });
  }

  /**
   * Service tickets in `user`'s name, through this principal's constrained delegation (this client must be made
   * with `forwardable`): S4U2Proxy on the evidence ticket, which is the user's own ticket to this service when the
   * user presented one (HTTP Negotiate, `presented`), else one S4U2Self obtains (protocol transition). Cached like
   * the client's own: a presented ticket's under the SID of its PAC (the account, whatever the ticket's name
   * spells), a named user's under the name.
   */
  onBehalfOf(user: string, presented?: PresentedTicket): TicketSource {
    const holder = presented ? `sid:${presented.sid}` : `name:${user.toLowerCase()}`;
    return {
      serviceTicket: (spn) =>
        this.cached(`s4u:${holder}:${spn.toLowerCase()}`, async () => {
          const tgt = await this.ticketGrantingTicket();
          const now = new Date(this.now());
          return s4u2proxy(this.kdc, tgt, presented?.evidence ?? (await s4u2self(this.kdc, tgt, user, now)), spn, now);
        }),
    };
  }
}

