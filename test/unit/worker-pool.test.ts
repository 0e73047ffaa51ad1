// WorkerPool starts its threads as tasks come (none while idle), at most maxThreads, and ends a thread that has
// had no task for the idle time unless keepWarm holds one; each running thread's V8 heap can be read as `<pool>#<n>`; a task's buffers can be moved.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rmSync, writeFileSync } from 'node:fs';
import { poolTaskLoader } from '../../src/runtime/thread-bundles.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import type { EchoTasks } from './fixtures/echo-task.js';

const ENTRY = new URL('./fixtures/echo-task.js', import.meta.url);

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('starts threads on demand up to maxThreads and ends them when idle', async () => {
  const pool = new WorkerPool<EchoTasks>('echo', ENTRY, 2, undefined, { idleThreadMs: 300 });
  try {
    assert.equal(pool.health().details.threads, 0, 'no thread before the first task');
    assert.deepEqual(await pool.heaps(), {});
    const answers = await Promise.all(Array.from({ length: 20 }, (_, value) => pool.run({ type: 'echo', value })));
    assert.deepEqual(answers.map((a) => a.value), Array.from({ length: 20 }, (_, value) => value));
    const threads = new Set(answers.map((a) => a.threadId)).size;
    assert.ok(threads >= 1 && threads <= 2, `${threads} threads ran the tasks`);
    assert.ok(pool.health().details.threads <= 2);
    const heaps = await pool.heaps();
    assert.ok(Object.keys(heaps).length >= 1);
    assert.ok(heaps['echo#1']!.used_heap_size > 0);
    await until(() => pool.health().details.threads === 0);
    assert.equal((await pool.run({ type: 'echo', value: 7 })).value, 7, 'a task after the idle time starts a thread again');
  } finally {
    await pool.close(1_000);
  }
});

it('warm() starts a thread only when none runs, and says how many threads the pool may start', async () => {
  const pool = new WorkerPool<EchoTasks>('echo', ENTRY, 3, undefined, { idleThreadMs: 60_000 });
  try {
    assert.equal(pool.health().details.maxThreads, 3);
    pool.warm({ type: 'echo', value: 0 });
    await until(() => pool.health().details.completed === 1);
    assert.equal(pool.health().details.threads, 1);
    pool.warm({ type: 'echo', value: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(pool.health().details.completed, 1, 'a thread runs already: nothing is started or run');
  } finally {
    await pool.close(1_000);
  }
});

it('keepWarm() keeps one thread past its idle time until the time given, then lets it end', async () => {
  const pool = new WorkerPool<EchoTasks>('echo', ENTRY, 2, undefined, { idleThreadMs: 300 });
  try {
    const kept = performance.now();
    pool.keepWarm({ type: 'echo', value: 0 }, 1_500);
    await until(() => pool.health().details.threads === 1);
    // Three idle times later the thread would long have ended without keepWarm.
    await new Promise((resolve) => setTimeout(resolve, 900));
    assert.equal(pool.health().details.threads, 1, 'kept past its idle time');
    await until(() => pool.health().details.threads === 0);
    assert.ok(performance.now() - kept >= 1_400, 'ended once the time given had passed (and its idle time)');
  } finally {
    await pool.close(1_000);
  }
});

it('moves the buffers a task is given to the pool thread instead of copying them', async () => {
  const pool = new WorkerPool<EchoTasks>('echo', ENTRY, 1, undefined);
  try {
    const bytes = new Uint8Array(4096);
    const copied = new Uint8Array(4096);
    assert.equal((await pool.run({ type: 'echo', value: 1, bytes: copied })).value, 1);
    assert.equal(copied.byteLength, 4096, 'without a transfer list the task gets a copy');
    assert.equal((await pool.run({ type: 'echo', value: 2, bytes }, [bytes.buffer])).value, 2);
    assert.equal(bytes.byteLength, 0, 'moved: detached on this side');
  } finally {
    await pool.close(1_000);
  }
});

it("runs a task bundle's tasks through its CommonJS loader, which imports the bundle instead of require()-ing it", async () => {
  const loader = new URL('./fixtures/echo-task.cjs', import.meta.url);
  writeFileSync(loader, poolTaskLoader('echo-task.js'));
  const direct = new WorkerPool<EchoTasks>('echo', ENTRY, 1, undefined);
  const loaded = new WorkerPool<EchoTasks>('echo', loader, 1, undefined);
  try {
    assert.equal((await direct.run({ type: 'echo', value: 1 })).required, true, 'piscina require()s a task file it is given');
    const answer = await loaded.run({ type: 'echo', value: 2 });
    assert.equal(answer.value, 2);
    assert.equal(answer.required, false, 'the loader imported the bundle');
  } finally {
    await Promise.all([direct.close(1_000), loaded.close(1_000)]);
    rmSync(loader);
  }
});

it('fails each task with the error of a task bundle that cannot load', async () => {
  const loader = new URL('./fixtures/missing-task.cjs', import.meta.url);
  writeFileSync(loader, poolTaskLoader('missing-task.js'));
  const pool = new WorkerPool<EchoTasks>('missing', loader, 1, undefined);
  try {
    for (const value of [1, 2]) {
      await assert.rejects(pool.run({ type: 'echo', value }), /Cannot find module .*missing-task\.js/);
    }
  } finally {
    await pool.close(1_000);
    rmSync(loader);
  }
});
