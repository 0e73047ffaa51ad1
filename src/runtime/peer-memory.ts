// Memory another actor owns and hands out once (a SharedArrayBuffer over an RPC
// call), read and written here without a message per use. It belongs to one
// incarnation of that actor: when the actor is down, using it fails as a call
// would (ActorUnavailableError, fail closed); when a new thread of the actor
// connects, its memory is fetched anew, so whatever the old one held is gone
// as the owner's restart intends.
import type { PeerLink } from './actor.js';
import { ActorUnavailableError } from './rpc.js';

interface PeerMemoryOptions<V> {
  /** The peer's name, for errors. */
  readonly peer: string;
  /** The peer's link state (ActorContext.link). */
  readonly link: PeerLink;
  /** Asks the peer for its memory and wraps it in a view. */
  readonly fetch: () => Promise<V>;
  /** Whether the owner replaced the memory within the same incarnation (then the view is fetched again). */
  readonly replaced?: (view: V) => boolean;
}

export class PeerMemory<V> {
  private view: V | undefined;
  private incarnation = 0;
  private fetching: Promise<V> | undefined;

  constructor(private readonly options: PeerMemoryOptions<V>) {}

  /** The view of the current incarnation's memory: at once when held, else after one fetch. */
  get(): V | Promise<V> {
    const { link, peer, replaced } = this.options;
    if (!link.connected) throw new ActorUnavailableError(peer, 'not connected');
    const view = this.view;
    if (view !== undefined && this.incarnation === link.incarnation && replaced?.(view) !== true) return view;
    return this.fetching ??= this.fetchFor(link.incarnation);
  }

  private async fetchFor(incarnation: number): Promise<V> {
    try {
      const view = await this.options.fetch();
      // A view fetched from an incarnation that has gone meanwhile is used for this one call only.
      if (incarnation === this.options.link.incarnation) {
        this.view = view;
        this.incarnation = incarnation;
      }
      return view;
    } finally {
      this.fetching = undefined;
    }
  }
}
