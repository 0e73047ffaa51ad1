// An http-front thread's side of the loop-delay board (loop-delay-board.ts): while the reconciler's pacer listens,
// the thread's event-loop delay is sampled (perf_hooks, every 10 ms in native code) and the worst of each window
// reported. A delay here is what a request arriving then would have waited before its first line of code ran:
// on a busy host, mostly the time this thread waited for a core.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isListening, reportLoopDelay } from './loop-delay-board.js';

/** How often the worst delay is reported (and the board's listening flag read). */
const WINDOW_MS = 100;
const RESOLUTION_MS = 10;

export class LoopDelayReporter {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private sampling = false;
  private readonly timer: NodeJS.Timeout;

  /** `board`: the reconciler's board, or a failure while the reconciler is down (nothing is reported then). */
  constructor(private readonly board: () => Int32Array | Promise<Int32Array>) {
    this.timer = setInterval(() => void this.tick(), WINDOW_MS).unref();
  }

  private async tick(): Promise<void> {
    let board: Int32Array;
    try {
      board = await this.board();
    } catch {
      return this.sample(false);
    }
    // The histogram holds the intervals between its samples: the delay is what an interval took beyond the resolution.
    if (this.sampling && this.histogram.count > 0) reportLoopDelay(board, Math.max(0, this.histogram.max / 1000 - RESOLUTION_MS * 1000));
    this.histogram.reset();
    this.sample(isListening(board));
  }

  private sample(on: boolean): void {
    if (on === this.sampling) return;
    this.sampling = on;
    if (on) this.histogram.enable();
    else this.histogram.disable();
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample(false);
  }
}
