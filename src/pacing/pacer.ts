// How fast background work (passes, reindexes, rebuilds) reads pages: as fast as the pools allow (`fast`), or as
// fast as the request path allows (`balanced`, `gentle`: reconciler.pace). A paced run starts pages at a rate;
// each window the worst event-loop delay the http-fronts saw is compared with the pace's budget. Over it, the rate
// halves from what the window achieved (the request path is waiting for a core, and halving the reads, renders and
// bulk writes behind them gives one back fastest); under it, while pages wait, the rate creeps up by a step.
// Additive increase, multiplicative decrease: the request path recovers at once, the background work finds its
// share again step by step. The rate never falls below the pace's floor, so a pass always ends.

export const PACES = ['fast', 'balanced', 'gentle'] as const;
export type Pace = (typeof PACES)[number];

interface PaceBudget {
  /** The worst front delay a window may show before the rate halves. */
  delayBudgetMs: number;
  /** Pages per second the rate never goes below; also its step up per window. */
  minPagesPerSecond: number;
}

const BUDGETS: Record<Exclude<Pace, 'fast'>, PaceBudget> = {
  balanced: { delayBudgetMs: 3, minPagesPerSecond: 20 },
  gentle: { delayBudgetMs: 2, minPagesPerSecond: 5 },
};

/** How often the rate is reconsidered. */
const WINDOW_MS = 100;
/** A rate this high holds nothing back: the pools' own concurrency is the limit. */
const UNPACED_PAGES_PER_SECOND = 100_000;

/** Where the pacer reads the request path (the loop-delay board in the service). */
export interface RequestPathSignal {
  /** The worst delay seen since the last call, in microseconds (0: none reported). */
  takeWorstDelayUs(): number;
  /** Whether the fronts should measure: on while paced work is running. */
  listen(on: boolean): void;
}

export interface PacerStats {
  pace: Pace;
  /** Pages per second a paced run may start now; null for `fast` or while nothing holds it back. */
  pagesPerSecond: number | null;
  /** Windows in which the fronts' delay was over the budget and the rate halved. */
  slowedWindows: number;
}

export class Pacer {
  private readonly budget: PaceBudget | null;
  private rate = UNPACED_PAGES_PER_SECOND;
  /** Pages that may start now; refilled at `rate`, at most one window's worth. */
  private tokens = 0;
  private refilledAt = performance.now();
  /** Pages started in the current window. */
  private started = 0;
  private readonly waiting: (() => void)[] = [];
  private releaseTimer: NodeJS.Timeout | undefined;
  private windowTimer: NodeJS.Timeout | undefined;
  private idleWindows = 0;
  private slowedWindows = 0;

  constructor(
    private readonly pace: Pace,
    private readonly signal: RequestPathSignal,
  ) {
    this.budget = pace === 'fast' ? null : BUDGETS[pace];
  }

  /** Runs `work` when the rate lets it start. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.budget !== null) {
      this.watch();
      if (this.waiting.length > 0 || !this.take()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return work();
  }

  stats(): PacerStats {
    const paced = this.budget !== null && this.rate < UNPACED_PAGES_PER_SECOND;
    return { pace: this.pace, pagesPerSecond: paced ? Math.round(this.rate) : null, slowedWindows: this.slowedWindows };
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.tokens + ((now - this.refilledAt) / 1000) * this.rate, Math.max(1, (this.rate * WINDOW_MS) / 1000));
    this.refilledAt = now;
  }

  private take(): boolean {
    if (this.rate >= UNPACED_PAGES_PER_SECOND) {
      this.started++;
      return true;
    }
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens--;
    this.started++;
    return true;
  }

  /** Lets waiting pages start as tokens come, in the order they asked. */
  private release(): void {
    this.releaseTimer = undefined;
    while (this.waiting.length > 0 && this.take()) this.waiting.shift()!();
    if (this.waiting.length > 0) {
      const msToNext = ((1 - this.tokens) / this.rate) * 1000;
      this.releaseTimer = setTimeout(() => this.release(), Math.max(1, msToNext));
    }
  }

  /** Starts the windows with the first paced page; they stop once a whole window has passed with none asked for. */
  private watch(): void {
    this.idleWindows = 0;
    if (this.windowTimer !== undefined) return;
    this.signal.listen(true);
    this.signal.takeWorstDelayUs();
    this.started = 0;
    this.windowTimer = setInterval(() => this.window(), WINDOW_MS).unref();
  }

  private window(): void {
    const budget = this.budget!;
    const worstMs = this.signal.takeWorstDelayUs() / 1000;
    const achieved = (this.started * 1000) / WINDOW_MS;
    if (worstMs > budget.delayBudgetMs) {
      this.rate = Math.max(budget.minPagesPerSecond, Math.min(this.rate, achieved) / 2);
      this.slowedWindows++;
    } else if (this.waiting.length > 0) {
      // Only a rate that holds pages back is raised: one that holds nothing back says nothing about a higher one.
      this.rate = Math.min(UNPACED_PAGES_PER_SECOND, this.rate + budget.minPagesPerSecond);
    }
    this.started = 0;
    if (this.releaseTimer === undefined) this.release();
    if (this.idleWindows++ > 0 && this.waiting.length === 0) {
      clearInterval(this.windowTimer);
      this.windowTimer = undefined;
      this.signal.listen(false);
    }
  }
}
