/**
 * The acceptor's replay cache (RFC 4120 3.2.3, RFC 4559 6): an authenticator is accepted once. Whoever copies an
 * `Authorization: Negotiate` header off the wire could otherwise present it again as its sender. An authenticator
 * older than the allowed clock skew is refused by the skew check anyway, so an entry is kept only until its ctime
 * plus the skew. The cache is bounded: when it is full of entries still inside that window it refuses the new
 * authenticator rather than forget an old one, since forgetting would let that one be replayed.
 */
import { KerberosError } from './errors.js';
import { authenticatorTime } from './messages.js';

export class ReplayCache {
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

  /** Drops expired entries: from the front until a live one (cheap, every call), or all of them when the cache is full. */
  private prune(now: number, all: boolean): void {
    for (const [key, until] of this.seen) {
      if (until < now) this.seen.delete(key);
      else if (!all) return;
    }
  }
}
