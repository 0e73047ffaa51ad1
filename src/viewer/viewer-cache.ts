// The http-front's copy of the ldap-resolver's viewer answers, so that a warm
// wiki call asks no other thread. An answer is reused exactly as long as the
// resolver would give it from its own caches (the login, the named user and
// the group names it was made from: ReusableViewerAnswer), and never across a
// change of the wiki visibility (the resolver bumps a generation word in
// memory it shares with every front) or a restart of the resolver (which
// empties its caches: its next incarnation's memory is another).
import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ReusableViewerAnswer, ViewerAnswer, ViewerQuery } from './viewer.js';

/** Word of the resolver's shared memory bumped at every change of the wiki visibility. */
export const VISIBILITY_GENERATION = 0;
export const VIEWER_EPOCH_WORDS = 1;

interface ViewerAnswerCacheDeps {
  /** The resolver's shared memory of its current incarnation; throws or rejects while the resolver is down. */
  epoch(): Int32Array | Promise<Int32Array>;
  /** Asks the resolver. */
  resolve(query: ViewerQuery): Promise<ReusableViewerAnswer>;
  now?: () => number;
}

interface Entry {
  readonly answer: ViewerAnswer;
  readonly until: number;
  readonly epoch: Int32Array;
  readonly generation: number;
}

export class ViewerAnswerCache {
  /** Keys are hashes salted with a secret of this thread: the cache never holds a password, nor its plain hash. */
  private readonly secret = randomBytes(32).toString('base64');
  private readonly entries = new LRUCache<string, Entry>({ max: 10_000 });
  private readonly now: () => number;

  constructor(private readonly deps: ViewerAnswerCacheDeps) {
    this.now = deps.now ?? Date.now;
  }

  async resolve(query: ViewerQuery): Promise<ViewerAnswer> {
    // Read before asking: a visibility change while the resolver answers makes the entry stale at once.
    const epoch = await this.deps.epoch();
    const generation = Atomics.load(epoch, VISIBILITY_GENERATION);
    const key = this.keyOf(query);
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.epoch === epoch && hit.generation === generation && this.now() < hit.until) return hit.answer;
    const { answer, reusableUntil } = await this.deps.resolve(query);
    if (reusableUntil === undefined) this.entries.delete(key);
    else this.entries.set(key, { answer, until: reusableUntil, epoch, generation });
    return answer;
  }

  /**
   * Everything the answer depends on but the client address (which only the login throttle reads, on a miss). A
   * ticket holder is the account of its PAC's SID, whatever name the ticket spells: keyed by that SID alone.
   */
  private keyOf(query: ViewerQuery): string {
    const caller = query.negotiated ? ['negotiated', query.negotiated.sid] : [query.user, query.password];
    const identity = JSON.stringify([...caller, query.groupsHeader ?? null, query.serviceUserHeader ?? null]);
    // One hash call (no Hmac object per request); a key is only compared for equality, so a salted hash does.
    return hash('sha256', `${this.secret}${identity}`, 'base64');
  }
}
