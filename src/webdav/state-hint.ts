// The http-front's view of the dav-state actor's shared counters: with no
// locks anywhere, writes need no lock check; with no dead properties,
// PROPFIND needs no property lookup. When the dav-state incarnation that
// owns the counters goes away, the next one's are fetched.
import {
  HINT_LOCKS, HINT_PROPERTY_RESOURCES, HINT_RETIRED, type DavStateProtocol,
} from '../messages/dav-state.js';
import type { Remote } from '../runtime/rpc.js';

export interface StateCounts {
  locks: number;
  propertyResources: number;
}

export class DavStateHints {
  private view: Int32Array | undefined;

  constructor(private readonly davState: Remote<DavStateProtocol>) {}

  /** The current counts; fails (ActorUnavailableError) while dav-state is down. */
  async counts(): Promise<StateCounts> {
    if (this.view === undefined || Atomics.load(this.view, HINT_RETIRED) === 1) {
      this.view = new Int32Array(await this.davState.hint());
    }
    return { locks: Atomics.load(this.view, HINT_LOCKS), propertyResources: Atomics.load(this.view, HINT_PROPERTY_RESOURCES) };
  }
}
