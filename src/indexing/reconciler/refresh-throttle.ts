/**
 * Makes a save searchable soon without refreshing the index for every batch: a refresh asked for runs at once when
 * the last one began at least `minGapMs` ago, else once when that gap has passed (however many were asked for
 * meanwhile). One refresh at a time; a failed one is only logged, since the index's own refresh interval follows.
 */
import { describeSearchError } from '../../search/search-failure.js';
import type { Logger } from '../../common/logger.js';

export interface RefreshThrottleOptions {
  /** Makes what was written searchable (Elasticsearch's `_refresh` of the alias, in the service). */
  refresh(): Promise<void>;
  minGapMs: number;
  log: Logger;
}

export class RefreshThrottle {
  private readonly options: RefreshThrottleOptions;
  /** When the last refresh began (performance.now()); -Infinity before the first. */
  private lastStart = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** A refresh was asked for while one ran or waited for its gap. */
  private asked = false;

  constructor(options: RefreshThrottleOptions) {
    this.options = options;
  }

  request(): void {
    if (this.running || this.timer !== undefined) {
      this.asked = true;
      return;
    }
    const wait = this.lastStart + this.options.minGapMs - performance.now();
    if (wait <= 0) void this.run();
    else this.timer = setTimeout(() => void this.run(), wait);
  }

  /** Stops a refresh waiting for its gap (the service is stopping). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.asked = false;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.asked = false;
    this.running = true;
    this.lastStart = performance.now();
    try {
      await this.options.refresh();
    } catch (error) {
      this.options.log.warn({ ...describeSearchError(error) }, 'search index refresh after a save failed; the index refreshes on its own');
    } finally {
      this.running = false;
      if (this.asked) this.request();
    }
  }
}
