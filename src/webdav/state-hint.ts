// The http-front's view of the dav-state actor's shared counters: with no
// locks anywhere, writes need no lock check; with no dead properties,
// PROPFIND needs no property lookup. When the dav-state incarnation that
// owns the counters goes away, the next one's are fetched.

/** Layout of the shared counters: an Int32Array over the SharedArrayBuffer `hint()` returns, which dav-state writes. */
export const HINT_LOCKS = 0;
export const HINT_PROPERTY_RESOURCES = 1;
/** Set to 1 when the dav-state incarnation that owns the buffer stops or dies. */
export const HINT_RETIRED = 2;
export const HINT_SLOTS = 3;

/** Where the counters come from: the dav-state actor (src/webdav/state-keeper.ts). */
export interface StateHintSource {
  hint(): Promise<SharedArrayBuffer>;
}

interface StateCounts {
  locks: number;
  propertyResources: number;
}

export class DavStateHints {
  private view: Int32Array | undefined;

  constructor(private readonly davState: StateHintSource) {}

  /** The current counts; fails (ActorUnavailableError) while dav-state is down. */
  async counts(): Promise<StateCounts> {
    if (this.view === undefined || Atomics.load(this.view, HINT_RETIRED) === 1) {
      this.view = new Int32Array(await this.davState.hint());
    }
    return { locks: Atomics.load(this.view, HINT_LOCKS), propertyResources: Atomics.load(this.view, HINT_PROPERTY_RESOURCES) };
  }
}
