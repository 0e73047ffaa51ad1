/**
 * The acceptor's replay cache (RFC 4120 3.2.3, RFC 4559 6): an authenticator is accepted once. Whoever copies an
 * `Authorization: Negotiate` header off the wire could otherwise present it again as its sender. An authenticator
 * older than the allowed clock skew is refused by the skew check anyway, so an entry is kept only until its ctime
 * plus the skew. The cache is bounded, in total and per client principal: when it, or the client's share, is full of
 * entries still inside that window it refuses the new authenticator rather than forget an old one, since forgetting
 * would let that one be replayed.
 * A service has one cache for all its HTTP threads (a header copied off one connection could be sent to another
 * thread): the supervisor holds it (supervisor/supervisor.ts says why there), the fronts ask it with
 * remoteReplayGuard.
 */
import { KerberosError, type KerberosErrorCode } from './errors.js';
import { authenticatorTime } from './messages.js';

/** Where the acceptor records an authenticator it found genuine; throws or rejects with a KerberosError REPLAY. */
export interface ReplayGuard {
  admit(client: string, ctime: Date, cusec: number, now: Date): void | Promise<void>;
}

/** The cache's answer as it crosses threads (an Error loses its class there). */
export type ReplayVerdict = { ok: true } | { ok: false; code: Extract<KerberosErrorCode, 'REPLAY' | 'REPLAY_CACHE_FULL'>; message: string };

/** The guard of a thread that asks the service's one cache over a channel. */
export function remoteReplayGuard(ask: (client: string, ctime: Date, cusec: number, now: Date) => Promise<ReplayVerdict>): ReplayGuard {
  return {
    admit: async (client, ctime, cusec, now) => {
      const verdict = await ask(client, ctime, cusec, now);
      if (!verdict.ok) throw new KerberosError(verdict.code, verdict.message);
    },
  };
}

/**
 * How many authenticators the service's cache holds inside the skew window (a burst of 50,000 Negotiate requests in
 * five minutes), and how many of them may be one client principal's. Without the second bound one account filled
 * the cache for everyone: every other user's token was refused until its authenticators aged out. A tenth: 5,000 in
 * the five minutes an entry is kept is 17 a second, sustained, more than even a client that answers the 401 of
 * every request of a bulk copy with a new authenticator makes; ten accounts together can still fill the cache, one
 * cannot. Full, the cache takes 9 MB of heap as ten clients at their quota and 19 MB as 50,000 clients with one
 * authenticator each, its worst shape (test/unit/kerberos/replay-cache-memory.test.ts).
 */
export const REPLAY_CACHE_ENTRIES = 50_000;
export const REPLAY_CACHE_PER_CLIENT = 5_000;

/**
 * How often, at most, expired entries are dropped: one pass over the cache a second under load, rather than one over a
 * client's entries with each of its requests once it is at its quota. A client at its quota, or a full cache, may so
 * be refused for up to a second after its oldest entries expired.
 */
const SWEEP_INTERVAL_MS = 1000;

export class ReplayCache implements ReplayGuard {
  /**
   * Per client principal: its authenticators (ctime and cusec) → the time (ms) after which the skew check alone
   * refuses the authenticator. A client with none has no map, so there are never more maps than entries.
   */
  private readonly byClient = new Map<string, Map<string, number>>();
  private entries = 0;
  private nextSweep = 0;

  constructor(
    private readonly skewMs: number,
    private readonly capacity: number,
    /** How many entries one client principal may hold (REPLAY_CACHE_PER_CLIENT). */
    private readonly perClient: number,
  ) {}

  get size(): number {
    return this.entries;
  }

  /**
   * Records the authenticator of `client` (principal@REALM) made at ctime/cusec; throws REPLAY if seen before, and
   * REPLAY_CACHE_FULL when the client holds its quota, or the cache its capacity, of authenticators still inside the
   * skew window. Full is a refusal, never an eviction: an entry forgotten before its window ends could be replayed.
   */
  admit(client: string, ctime: Date, cusec: number, now: Date): void {
    const at = now.getTime();
    if (at >= this.nextSweep) {
      for (const [name, seen] of this.byClient) this.dropExpired(name, seen, at);
      this.nextSweep = at + SWEEP_INTERVAL_MS;
    }
    const seen = this.byClient.get(client) ?? new Map<string, number>();
    const key = `${ctime.getTime()}/${cusec}`;
    const until = seen.get(key);
    if (until !== undefined && until >= at) {
      throw new KerberosError('REPLAY', `the authenticator of ${client} made at ${ctime.toISOString()} was presented before (a replayed Negotiate token)`);
    }
    if (seen.size >= this.perClient) {
      throw new KerberosError('REPLAY_CACHE_FULL', `${client} has made ${seen.size} authenticators within the clock skew window, as many as one client may; try again shortly`);
    }
    if (this.entries >= this.capacity) {
      throw new KerberosError('REPLAY_CACHE_FULL', `the replay cache holds ${this.capacity} authenticators still within the clock skew window; try again shortly`);
    }
    // An expired entry of the same authenticator (not swept yet) is replaced, not counted twice.
    if (!seen.delete(key)) this.entries++;
    seen.set(key, authenticatorTime({ ctime, cusec }) + this.skewMs);
    this.byClient.set(client, seen);
  }

  /** admit as a verdict for the wire. */
  verdict(client: string, ctime: Date, cusec: number, now: Date): ReplayVerdict {
    try {
      this.admit(client, ctime, cusec, now);
      return { ok: true };
    } catch (err) {
      if (err instanceof KerberosError && (err.code === 'REPLAY' || err.code === 'REPLAY_CACHE_FULL')) return { ok: false, code: err.code, message: err.message };
      throw err;
    }
  }

  /** Drops the expired entries of one client, and the client with its last one. */
  private dropExpired(client: string, seen: Map<string, number>, now: number): void {
    for (const [key, until] of seen) {
      if (until < now) {
        seen.delete(key);
        this.entries--;
      }
    }
    if (seen.size === 0) this.byClient.delete(client);
  }
}
