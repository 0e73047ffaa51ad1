// The dedupe ring as shared memory: the same answers as a plain Set-and-array ring for any sequence of
// operations, ids of any length, and check-and-insert atomic across threads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { DedupeRing, DedupeRingRetiredError } from '../../../src/webhooks/dedupe-ring.js';

/** The ring as it was before it moved into shared memory: the reference. */
class ReferenceRing {
  private readonly seen = new Set<string>();
  private readonly ring: (string | undefined)[];
  private next = 0;
  constructor(private readonly capacity: number) { this.ring = new Array<string | undefined>(capacity); }
  checkAndInsert(id: string): boolean {
    if (this.seen.has(id)) return false;
    const evicted = this.ring[this.next];
    if (evicted !== undefined) this.seen.delete(evicted);
    this.ring[this.next] = id;
    this.seen.add(id);
    this.next = (this.next + 1) % this.capacity;
    return true;
  }
  forget(id: string): void {
    if (!this.seen.delete(id)) return;
    this.ring[this.ring.indexOf(id)] = undefined;
  }
  has(id: string): boolean { return this.seen.has(id); }
  get size(): number { return this.seen.size; }
}

/** A small deterministic generator, so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

describe('DedupeRing in shared memory', () => {
  it('answers as the Set-and-array ring for 30,000 random operations, ids short, long and non-ASCII', () => {
    const next = random(17);
    const ids = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? `long-${i}-${'x'.repeat(100)}` : i % 4 === 1 ? `größe-${i}-ü` : i % 4 === 2 ? `${'y'.repeat(63)}${i % 10}` : `id-${i}`);
    for (const capacity of [1, 7, 25]) {
      const ring = new DedupeRing(capacity);
      const reference = new ReferenceRing(capacity);
      for (let step = 0; step < 10_000; step++) {
        const id = ids[Math.floor(next() * ids.length)]!;
        const op = next();
        if (op < 0.6) assert.equal(ring.checkAndInsert(id), reference.checkAndInsert(id), `step ${step} insert ${id}`);
        else if (op < 0.75) { ring.forget(id); reference.forget(id); }
        else assert.equal(ring.has(id), reference.has(id), `step ${step} has ${id}`);
        assert.equal(ring.size, reference.size, `step ${step} size`);
      }
    }
  });

  it('tells long ids apart by all their characters (stored as a digest) and from short ones', () => {
    const ring = new DedupeRing(10);
    const long = 'e'.repeat(5000);
    assert.equal(ring.checkAndInsert(`${long}a`), true);
    assert.equal(ring.checkAndInsert(`${long}b`), true);
    assert.equal(ring.checkAndInsert(`${long}a`), false);
    assert.equal(ring.checkAndInsert('e'.repeat(64)), true, 'exactly one slot long');
    assert.equal(ring.checkAndInsert('e'.repeat(65)), true, 'one byte over: a digest');
    assert.equal(ring.checkAndInsert('e'.repeat(64)), false);
    assert.equal(ring.checkAndInsert('e'.repeat(65)), false);
  });

  it('a view on the same memory sees and changes the same ring', () => {
    const ring = new DedupeRing(3);
    const other = new DedupeRing({ memory: ring.memory, holder: 2 });
    assert.equal(ring.checkAndInsert('a'), true);
    assert.equal(other.checkAndInsert('a'), false);
    assert.equal(other.checkAndInsert('b'), true);
    other.forget('a');
    assert.equal(ring.has('a'), false);
    assert.equal(ring.size, 1);
    assert.equal(other.capacity, 3);
  });

  it('a retired ring refuses instead of waiting for a lock its holder will never free', () => {
    const ring = new DedupeRing(3);
    new Int32Array(ring.memory)[0] = 7; // a thread with tag 7 died inside the lock
    assert.equal(ring.lockHolder, 7);
    ring.retire();
    assert.equal(ring.retired, true);
    assert.throws(() => new DedupeRing({ memory: ring.memory, holder: 2 }).checkAndInsert('a'), DedupeRingRetiredError);
  });

  it('4 threads admitting the same 3,000 ids at once: each id is admitted exactly once', async () => {
    const ring = new DedupeRing(10_000);
    const ids = Array.from({ length: 3_000 }, (_, i) => (i % 3 === 0 ? `id-${i}-${'z'.repeat(80)}` : `id-${i}`));
    const moduleUrl = new URL('../../../src/webhooks/dedupe-ring.js', import.meta.url).href;
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ DedupeRing }) => {
        const ring = new DedupeRing({ memory: workerData.memory, holder: workerData.holder });
        const start = new Int32Array(workerData.start);
        Atomics.wait(start, 0, 0);
        const admitted = [];
        for (const id of workerData.ids) if (ring.checkAndInsert(id)) admitted.push(id);
        parentPort.postMessage(admitted);
      });`;
    const start = new SharedArrayBuffer(4);
    const workers = [2, 3, 4, 5].map((holder) => new Worker(code, {
      eval: true,
      workerData: { moduleUrl, memory: ring.memory, holder, start, ids: holder % 2 === 0 ? ids : [...ids].reverse() },
    }));
    const results = workers.map((worker) => new Promise<string[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    }));
    await new Promise((resolve) => setTimeout(resolve, 300)); // every worker waits at the start line
    Atomics.store(new Int32Array(start), 0, 1);
    Atomics.notify(new Int32Array(start), 0);
    const admitted = (await Promise.all(results)).flat();
    await Promise.all(workers.map((worker) => worker.terminate()));
    assert.equal(admitted.length, ids.length);
    assert.equal(new Set(admitted).size, ids.length);
    assert.equal(ring.size, ids.length);
    assert.equal(ring.lockHolder, 0);
  });
});
