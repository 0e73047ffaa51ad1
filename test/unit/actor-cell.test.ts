// ActorCell restarts a killed actor on its spare thread: the new incarnation runs on a thread created before the
// kill (so the restart skips thread start and module loading), and a new spare is prepared for the next one.
// Without spare threads (the default, supervisor.spare_threads) a restart starts a new thread and none waits.
// A cell asked to stop while its actor starts stops it, and does not take that exit for a crash.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { ActorCell } from '../../supervisor/actor-cell.js';
import { crashActor, killActor } from '../support/fault-drills.js';

const ENTRY = new URL('./fixtures/thread-id-actor.js', import.meta.url);
const LIMITS = { maxRestarts: 5, windowMs: 60_000, backoffInitialMs: 10, backoffMaxMs: 10 };

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Until the cell runs again after its `count`-th restart. */
async function restarted(cell: ActorCell, count: number): Promise<void> {
  while (cell.state !== 'running' || (await cell.report()).actor.restarts < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The thread the cell's actor runs on, once it answers a ping: a fresh incarnation on a busy machine may let one go. */
async function threadOf(cell: ActorCell): Promise<number> {
  for (;;) {
    const details = (await cell.report()).actor.details as { threadId?: number } | undefined;
    if (details?.threadId !== undefined) return details.threadId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An id above that of every thread created so far, below that of every later one. */
async function threadIdMark(): Promise<number> {
  const probe = new Worker('', { eval: true });
  const id = probe.threadId;
  await probe.terminate();
  return id;
}

function dedupeCell(spare: boolean): ActorCell {
  const events = { ready: () => undefined, down: () => undefined, gaveUp: () => undefined };
  return new ActorCell('dedupe', 'dedupe', ENTRY, { log: { level: 'silent' } }, {}, { heapLimits: {}, env: process.env, spare }, LIMITS, events, pino({ level: 'silent' }));
}

it('restarts a killed actor on a spare thread created before the kill', async () => {
  const cell = dedupeCell(true);
  cell.start();
  try {
    await until(() => cell.state === 'running');
    let previous = await threadOf(cell);
    for (let kill = 1; kill <= 2; kill++) {
      const mark = await threadIdMark();
      await killActor(cell.name);
      await restarted(cell, kill);
      const next = await threadOf(cell);
      assert.ok(previous < next && next < mark, `incarnation ${kill + 1} runs on thread ${next}, created between ${previous} and the kill (${mark})`);
      assert.equal((await cell.report()).actor.restarts, kill);
      previous = next;
    }
  } finally {
    await cell.stop(1_000);
  }
});

it('without spare threads, keeps no spare and restarts a killed actor on a thread created after the kill', async () => {
  const cell = dedupeCell(false);
  cell.start();
  try {
    await until(() => cell.state === 'running');
    const mark = await threadIdMark();
    assert.deepEqual(Object.keys(await cell.heaps()), ['dedupe'], 'no spare thread');
    await killActor(cell.name);
    await restarted(cell, 1);
    const next = await threadOf(cell);
    assert.ok(next > mark, `the new incarnation runs on thread ${next}, created after the kill (${mark})`);
    assert.deepEqual(Object.keys(await cell.heaps()), ['dedupe'], 'still no spare thread');
  } finally {
    await cell.stop(1_000);
  }
});

it('shows the reason of the last crash in its health without a path in it (/healthz answers without authentication)', async () => {
  const cell = dedupeCell(false);
  cell.start();
  try {
    await until(() => cell.state === 'running');
    await crashActor(cell.name, 'CREATE schule\\Klasse-12\\Zeugnis.md: STATUS_ACCESS_DENIED, then /var/lib/edu-fileproxy/dav-properties.log:3 is not valid JSON');
    await restarted(cell, 1);
    const { lastError } = (await cell.report()).actor;
    assert.equal(lastError, 'crashed: CREATE … STATUS_ACCESS_DENIED, then … is not valid JSON');
  } finally {
    await cell.stop(1_000);
  }
});

it('stops an actor asked to stop while it starts: its ready does not make it running, its exit is no crash', { timeout: 30_000 }, async () => {
  // As a service stopped (SIGTERM) while an actor restarts: the `stop` reaches the thread after its `ready` left it.
  const cell = dedupeCell(false);
  cell.start();
  await cell.stop(1_000);
  assert.equal(cell.state, 'stopped');
  assert.equal((await cell.report()).actor.restarts, 0, 'the stopped thread was not restarted');
  assert.deepEqual(await cell.heaps(), {}, 'no thread left');
});
