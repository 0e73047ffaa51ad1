// What background work knows of the request path: the worst event-loop delay any http-front thread saw since the
// reconciler's pacer last looked (pacer.ts). A few Int32 words in a SharedArrayBuffer the reconciler owns and hands
// out once (ReconcilerProtocol.loopDelayBoard), so a report costs no message. The fronts measure only while the
// pacer says it is listening: with no background work running, a front only reads that flag every 100 ms.

const WORST_DELAY_US = 0;
const LISTENING = 1;
const WORDS = 2;

export function createLoopDelayBoard(): SharedArrayBuffer {
  return new SharedArrayBuffer(WORDS * Int32Array.BYTES_PER_ELEMENT);
}

/** A front's report: raises the worst delay to `delayUs` if that is worse. */
export function reportLoopDelay(board: Int32Array, delayUs: number): void {
  const value = Math.min(Math.round(delayUs), 0x7fffffff);
  for (let seen = Atomics.load(board, WORST_DELAY_US); value > seen;) {
    const before = Atomics.compareExchange(board, WORST_DELAY_US, seen, value);
    if (before === seen) return;
    seen = before;
  }
}

/** The pacer's look: the worst delay reported since the last look (0: none), and a fresh start for the next one. */
export function takeWorstLoopDelay(board: Int32Array): number {
  return Atomics.exchange(board, WORST_DELAY_US, 0);
}

export function setListening(board: Int32Array, listening: boolean): void {
  Atomics.store(board, LISTENING, listening ? 1 : 0);
}

export function isListening(board: Int32Array): boolean {
  return Atomics.load(board, LISTENING) === 1;
}
