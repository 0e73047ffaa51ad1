// What the service's replay cache takes in the heap when it is full (REPLAY_CACHE_ENTRIES authenticators inside the
// skew window), for the two shapes a full cache can have: a few clients at their quota, or one authenticator each
// of as many clients. The heap is measured after a full collection, as in test/unit/webdav/dead-property-memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT, ReplayCache } from '../../../src/kerberos/replay-cache.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What a full cache may take, a fifth above the worst shape measured (19 MB; src/kerberos/replay-cache.ts, README). */
const BOUND_BYTES = 24 * 1024 * 1024;
const now = new Date(Date.UTC(2026, 10, 28, 8, 0, 0));

/** Heap bytes of a cache filled to its capacity with `clients` clients, each with an equal share. */
function heapAtBound(clients: number): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const cache = new ReplayCache(300_000, REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT);
  const each = REPLAY_CACHE_ENTRIES / clients;
  for (let c = 0; c < clients; c++) {
    // A name as long as a school's: first.lastname and a realm of three labels.
    const client = `vorname${c}.nachname@SCHULE.BEISPIEL.DE`;
    // As a client makes them: a microsecond count in each second, across the window.
    for (let i = 0; i < each; i++) cache.admit(client, new Date(now.getTime() - 1000 * (i % 300)), (c * 7919 + i * 104_729) % 1_000_000, now);
  }
  assert.equal(cache.size, REPLAY_CACHE_ENTRIES);
  assert.throws(() => cache.admit('one-more@SCHULE.BEISPIEL.DE', now, 1, now), /holds 50000 authenticators/);
  gc();
  const used = process.memoryUsage().heapUsed - before;
  process.stdout.write(`# ${clients} clients x ${each} authenticators: heap ${used} bytes, ${(used / REPLAY_CACHE_ENTRIES).toFixed(0)} per entry\n`);
  return used;
}

for (const clients of [REPLAY_CACHE_ENTRIES / REPLAY_CACHE_PER_CLIENT, REPLAY_CACHE_ENTRIES]) {
  test(`a full replay cache of ${clients} clients stays within ${BOUND_BYTES / 1024 / 1024} MiB of heap`, () => {
    const used = heapAtBound(clients);
    assert.ok(used <= BOUND_BYTES, `${used} bytes`);
  });
}
