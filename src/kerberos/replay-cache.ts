/**
 * The acceptor's replay cache (RFC 4120 3.2.3, RFC 4559 6): an authenticator is accepted once. Whoever copies an
 * `Authorization: Negotiate` header off the wire could otherwise present it again as its sender. An authenticator
 * older than the allowed clock skew is refused by the skew check anyway, so an entry is kept only until its ctime
 * plus the skew. The cache is bounded: when it is full of entries still inside that window it refuses the new
 * authenticator rather than forget an old one, since forgetting would let that one be replayed.
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

export class ReplayCache implements ReplayGuard {
  /** key → the time (ms) after which the skew check alone refuses the authenticator. Insertion order is near expiry order. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly skewMs: number,
    private readonly capacity: number,
  ) {}

  get size(): number {
    return this.seen.size;
  }

  /** Records the authenticator of `client` (principal@REALM) made at ctime/cusec; throws REPLAY if seen before. */
  admit(client: string, ctime: Date, cusec: number, now: Date): void {
    const key = `${client}\u0000${ctime.getTime()}\u0000${cusec}`;
    this.prune(now.getTime(), false);
    const until = this.seen.get(key);
    if (until !== undefined && until >= now.getTime()) {
      throw new KerberosError('REPLAY', `the authenticator of ${client} made at ${ctime.toISOString()} was presented before (a replayed Negotiate token)`);
    }
    if (this.seen.size >= this.capacity) this.prune(now.getTime(), true);
    if (this.seen.size >= this.capacity) {
      throw new KerberosError('REPLAY_CACHE_FULL', `the replay cache holds ${this.capacity} authenticators still within the clock skew window; try again shortly`);
    }
    this.seen.set(key, authenticatorTime({ ctime, cusec }) + this.skewMs);
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

  /** Drops expired entries: from the front until a live one (cheap, every call), or all of them when the cache is full. */
  private prune(now: number, all: boolean): void {
    for (const [key, until] of this.seen) {
      if (until < now) this.seen.delete(key);
      else if (!all) return;
    }
  }
}
