// The pacer's rule against a scripted request path: in a window whose worst front delay is over the pace's budget
// the rate halves from what the window achieved, down to the pace's floor; in a window under it, while pages wait,
// the rate creeps up by a step; pages start in the order they asked; `fast` holds nothing back. The loop-delay
// board's words as the fronts and the pacer share them. The fronts and a reindex together are measured by
// bench/scale.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { createLoopDelayBoard, isListening, reportLoopDelay, setListening, takeWorstLoopDelay } from '../../../src/pacing/loop-delay-board.js';
import { Pacer } from '../../../src/pacing/pacer.js';
import { waitFor } from '../../support/service.js';

/** A request path whose fronts report `delayMs()` in every window; `listening` as the pacer last set it. */
function scriptedPath(delayMs: () => number) {
  const path = { listening: false, takeWorstDelayUs: () => delayMs() * 1000, listen: (on: boolean) => (path.listening = on) };
  return path;
}

/** `count` callers that each ask the pacer for one page after another until stopped; pages started, in order. */
function feeders(pacer: Pacer, count: number) {
  let started = 0;
  let stopped = false;
  const order: number[] = [];
  const loops = Array.from({ length: count }, async () => {
    while (!stopped) {
      await pacer.run(async () => void order.push(started++));
      await nextTurn();
    }
  });
  return { started: () => started, order, stop: async () => ((stopped = true), await Promise.all(loops)) };
}

const WINDOW_MS = 100;

/**
 * Waits for the pacer's windows to have done something rather than for a time: its windows are timers, and on a
 * busy machine fewer of them fire in a second than the second holds.
 */
const windowsUntil = (check: () => boolean) => waitFor(async () => check(), 10_000);

describe('pacer', () => {
  it('halves the rate while the fronts wait longer than the budget, down to the floor, and creeps up after', async () => {
    let delayMs = 50;
    const path = scriptedPath(() => delayMs);
    const pacer = new Pacer('balanced', path);
    const work = feeders(pacer, 50);
    try {
      await sleep(0);
      assert.ok(work.started() >= 50, 'until a window is seen, nothing is held back');
      assert.equal(path.listening, true, 'the fronts measure while paced work runs');
      // From 1000 pages/s, halving each window reaches the floor within seven windows.
      await windowsUntil(() => pacer.stats().slowedWindows >= 12);
      assert.equal(pacer.stats().pagesPerSecond, 20, 'balanced goes down to 20 pages/s');
      const atFloor = work.started();
      const since = performance.now();
      await sleep(WINDOW_MS * 10);
      const perSecond = ((work.started() - atFloor) * 1000) / (performance.now() - since);
      assert.ok(perSecond >= 10 && perSecond <= 30, `starts pages at the floor's rate (${perSecond.toFixed(1)}/s)`);
      delayMs = 0;
      await windowsUntil(() => pacer.stats().pagesPerSecond !== 20);
      assert.equal(pacer.stats().pagesPerSecond, 40, 'creeps up by 20 pages/s in a window under the budget');
    } finally {
      await work.stop();
    }
    assert.deepEqual(work.order, [...work.order].sort((a, b) => a - b), 'in the order they asked');
    await windowsUntil(() => !path.listening).catch(() => assert.fail('the fronts stop measuring once no paced work is left'));
  });

  it('gentle goes down to 5 pages/s, and up again while a page waits', async () => {
    let delayMs = 20;
    const pacer = new Pacer('gentle', scriptedPath(() => delayMs));
    const work = feeders(pacer, 20);
    try {
      await windowsUntil(() => pacer.stats().pagesPerSecond === 5).catch(() => assert.fail(`gentle goes down to 5 pages/s, not ${pacer.stats().pagesPerSecond}`));
    } finally {
      await work.stop();
    }
    delayMs = 0;
    const single = feeders(pacer, 1);
    try {
      await windowsUntil(() => pacer.stats().pagesPerSecond! > 5).catch(() => assert.fail('one caller waiting for each page is held back, so the rate rises'));
    } finally {
      await single.stop();
    }
  });

  it('fast holds nothing back and asks the fronts for nothing', async () => {
    const path = scriptedPath(() => 1_000);
    const pacer = new Pacer('fast', path);
    const work = feeders(pacer, 10);
    await sleep(WINDOW_MS * 1.5);
    await work.stop();
    assert.ok(work.started() > 1_000, `${work.started()} pages`);
    assert.equal(path.listening, false);
    assert.equal(pacer.stats().pagesPerSecond, null);
  });
});

describe('loop-delay board', () => {
  it('keeps the worst report until the pacer takes it', () => {
    const board = new Int32Array(createLoopDelayBoard());
    reportLoopDelay(board, 1_500);
    reportLoopDelay(board, 40_000.4);
    reportLoopDelay(board, 900);
    assert.equal(takeWorstLoopDelay(board), 40_000);
    assert.equal(takeWorstLoopDelay(board), 0, 'each look starts afresh');
    reportLoopDelay(board, 1e12);
    assert.equal(takeWorstLoopDelay(board), 0x7fffffff, 'a delay beyond the word is the most it holds');
  });

  it('says whether the pacer listens', () => {
    const board = new Int32Array(createLoopDelayBoard());
    assert.equal(isListening(board), false);
    setListening(board, true);
    assert.equal(isListening(board), true);
  });
});
