import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CallBatcher } from '../../../src/common/call-batcher.js';

describe('CallBatcher', () => {
  it('sends the calls of one turn together and answers each with its own result', async () => {
    const batches: number[][] = [];
    const batcher = new CallBatcher(async (args: number[]) => (batches.push(args), args.map((n) => n * 10)));
    const first = await Promise.all([batcher.call(1), batcher.call(2), batcher.call(3)]);
    assert.deepEqual(first, [10, 20, 30]);
    assert.deepEqual(await batcher.call(4), 40);
    assert.deepEqual(batches, [[1, 2, 3], [4]]);
  });

  it('fails every call of a batch when the flush fails or answers the wrong number of results', async () => {
    const failing = new CallBatcher(async (): Promise<number[]> => { throw new Error('actor down'); });
    const results = await Promise.allSettled([failing.call(1), failing.call(2)]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    const short = new CallBatcher(async () => [1]);
    await assert.rejects(Promise.all([short.call('a'), short.call('b')]), /batch of 2 calls got 1 results/);
  });
});
