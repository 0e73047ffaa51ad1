import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RestartPolicy } from '../../supervisor/restart-policy.js';

const limits = { maxRestarts: 3, windowMs: 10_000, backoffInitialMs: 100, backoffMaxMs: 350 };

it('backs off exponentially up to the maximum', () => {
  const policy = new RestartPolicy(limits);
  assert.deepEqual(policy.onCrash(0), { restart: true, delayMs: 100 });
  assert.deepEqual(policy.onCrash(1), { restart: true, delayMs: 200 });
  assert.deepEqual(policy.onCrash(2), { restart: true, delayMs: 350 });
});

it('gives up after maxRestarts within the window', () => {
  const policy = new RestartPolicy(limits);
  for (let t = 0; t < 3; t++) assert.equal(policy.onCrash(t).restart, true);
  assert.equal(policy.onCrash(3).restart, false);
});

it('forgets crashes older than the window', () => {
  const policy = new RestartPolicy(limits);
  for (let t = 0; t < 3; t++) policy.onCrash(t);
  assert.deepEqual(policy.onCrash(10_003), { restart: true, delayMs: 100 });
});
