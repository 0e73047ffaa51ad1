import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapConcurrent } from '../../../src/common/map-concurrent.js';
import { readAhead } from '../../../src/common/read-ahead.js';

async function* numbers(count: number, onRead: (n: number) => void = () => undefined): AsyncGenerator<number> {
  for (let n = 0; n < count; n++) {
    onRead(n);
    yield n;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapConcurrent', () => {
  it('maps every item with at most `limit` at once, reading the source only as fast as work finishes', async () => {
    let running = 0;
    let most = 0;
    let read = 0;
    const results: number[] = [];
    for await (const value of mapConcurrent(numbers(40, () => read++), 4, async (n) => {
      running++;
      most = Math.max(most, running);
      assert.ok(read - results.length <= 4 + 1, 'no more than limit items in hand');
      await sleep(n % 3);
      running--;
      return n * 2;
    })) results.push(value);
    assert.deepEqual(results.sort((a, b) => a - b), Array.from({ length: 40 }, (_, n) => n * 2));
    assert.equal(most, 4);
  });

  it('throws the first failure only after the work in flight has settled', async () => {
    const settled: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const _ of mapConcurrent(numbers(10), 3, async (n) => {
          if (n === 1) throw new Error('item 1 failed');
          await sleep(20);
          settled.push(n);
        }));
      })(),
      /item 1 failed/,
    );
    assert.deepEqual(settled.sort(), [0, 2], 'the two items running beside the failed one finished first');
  });

  it('waits for the work in flight when the consumer stops early, and reads no further', async () => {
    const settled: number[] = [];
    let read = 0;
    for await (const _ of mapConcurrent(numbers(100, () => read++), 5, async (n) => {
      await sleep(5 + n);
      settled.push(n);
    })) break;
    assert.equal(settled.length, 5, 'every started item finished before the loop was left');
    assert.equal(read, 5);
  });

  it('takes an array as its source', async () => {
    let running = 0;
    let most = 0;
    const results: number[] = [];
    for await (const value of mapConcurrent([1, 2, 3, 4, 5], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await sleep(n);
      running--;
      return n * 10;
    })) results.push(value);
    assert.deepEqual(results.sort((a, b) => a - b), [10, 20, 30, 40, 50]);
    assert.equal(most, 2);
  });

  it('passes a failure of the source on', async () => {
    async function* broken(): AsyncGenerator<number> {
      yield 1;
      throw new Error('source broke');
    }
    await assert.rejects(
      (async () => {
        for await (const _ of mapConcurrent(broken(), 2, async (n) => n));
      })(),
      /source broke/,
    );
  });
});

describe('readAhead', () => {
  it('yields every item in order while reading up to `ahead` items in advance', async () => {
    let read = 0;
    const seen: number[] = [];
    for await (const n of readAhead(numbers(20, () => read++), 5)) {
      await sleep(1);
      assert.ok(read <= n + 1 + 5, `read ${read} at item ${n}`);
      assert.ok(read >= Math.min(20, n + 5), `read ahead: ${read} at item ${n}`);
      seen.push(n);
    }
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, n) => n));
  });

  it('passes a failure of the source on when it is reached, and stops the source when the consumer stops', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      yield 2;
      throw new Error('index unreachable');
    }
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const n of readAhead(failing(), 10)) seen.push(n);
      })(),
      /index unreachable/,
    );
    assert.deepEqual(seen, [1, 2]);

    let closed = false;
    async function* endless(): AsyncGenerator<number> {
      try {
        for (let n = 0; ; n++) yield n;
      } finally {
        closed = true;
      }
    }
    for await (const n of readAhead(endless(), 3)) if (n === 4) break;
    assert.equal(closed, true);
  });
});
