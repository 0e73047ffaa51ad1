// The save refresh's throttle: at once when the last refresh is long enough ago, else once when the gap has passed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLog } from '../../../src/common/logger.js';
import { RefreshThrottle } from '../../../src/indexing/reconciler/refresh-throttle.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function throttleWith(minGapMs: number, refresh: () => Promise<void> = async () => undefined) {
  const starts: number[] = [];
  const done = { count: 0 };
  const throttle = new RefreshThrottle({
    refresh: async () => {
      starts.push(performance.now());
      await refresh();
      done.count++;
    },
    minGapMs,
    log: silentLog,
  });
  return { throttle, starts, done };
}

describe('RefreshThrottle', () => {
  it('refreshes at once when idle, and once more after the gap however many ask meanwhile', async () => {
    const { throttle, starts, done } = throttleWith(150);
    const asked = performance.now();
    throttle.request();
    await sleep(5);
    assert.equal(starts.length, 1, 'the first refresh runs at once');
    assert.ok(starts[0]! - asked < 50);
    for (let i = 0; i < 5; i++) throttle.request();
    await sleep(60);
    assert.equal(starts.length, 1, 'nothing more within the gap');
    await sleep(150);
    assert.equal(starts.length, 2, 'the requests within the gap made one refresh');
    assert.ok(starts[1]! - starts[0]! >= 145, `gap ${starts[1]! - starts[0]!} ms`);
    await sleep(200);
    assert.equal(starts.length, 2, 'no request, no refresh');
    assert.equal(done.count, 2);
  });

  it('a request while a refresh runs is served after it; a failed refresh is not fatal', async () => {
    let fail = true;
    const { throttle, starts, done } = throttleWith(0, async () => {
      await sleep(40);
      if (fail) {
        fail = false;
        throw new Error('index_not_found_exception');
      }
    });
    throttle.request();
    await sleep(10);
    throttle.request();
    await sleep(120);
    assert.equal(starts.length, 2);
    assert.ok(starts[1]! - starts[0]! >= 38, 'one refresh at a time');
    assert.equal(done.count, 1, 'the first refresh failed, the one asked for meanwhile ran after it');
  });

  it('close drops a refresh waiting for its gap', async () => {
    const { throttle, starts } = throttleWith(100);
    throttle.request();
    throttle.request();
    throttle.close();
    await sleep(150);
    assert.equal(starts.length, 1);
  });
});
