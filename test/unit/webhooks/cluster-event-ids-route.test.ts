// How an http-front asks the dedupe actor for the event ids the proxies share (src/webhooks/routes.ts):
// the admits of one turn in one call, each answered for itself, and a failure of the cluster a 503 that names no node.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterEventIds } from '../../../src/webhooks/routes.js';
import { HttpError } from '../../../src/http/http-error.js';
import { ActorUnavailableError } from '../../../src/runtime/rpc.js';
import type { Admission } from '../../../src/webhooks/cluster-event-ids.js';

const idle = { seenShared: async () => false, forgetShared: async () => undefined };

describe('the shared event ids as a front asks for them', () => {
  it('sends the admits of one turn as one call, and answers each sender with its own admission', async () => {
    const calls: string[][] = [];
    const answers: Record<string, Admission> = { a: 'admitted', b: 'duplicate', c: { failed: 'status 503: unavailable_shards_exception: ' } };
    const ids = clusterEventIds({
      ...idle,
      admitShared: async (events) => {
        calls.push(events.map((e) => `${e.eventId}/${e.clientId}`));
        return events.map((e) => answers[e.eventId]!);
      },
    });
    const [a, b, c] = await Promise.allSettled([ids.admit('a', 'k1'), ids.admit('b', 'k1'), ids.admit('c', 'k2')]);
    assert.deepEqual(calls, [['a/k1', 'b/k1', 'c/k2']]);
    assert.deepEqual([a, b], [{ status: 'fulfilled', value: true }, { status: 'fulfilled', value: false }]);
    assert.equal(c.status, 'rejected');
    const error = (c as PromiseRejectedResult).reason as HttpError;
    assert.ok(error instanceof HttpError);
    assert.deepEqual([error.status, error.code], [503, 'shared_state_unavailable']);
  });

  it('a cluster that does not answer is a 503 naming no node; a dedupe actor that is down stays ActorUnavailableError', async () => {
    const failing = clusterEventIds({
      admitShared: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:9200')),
      seenShared: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:9200')),
      forgetShared: () => Promise.reject(new ActorUnavailableError('dedupe', 'restarting')),
    });
    for (const call of [() => failing.admit('x', 'k'), () => failing.seen('x')]) {
      await assert.rejects(call(), (err: unknown) => err instanceof HttpError && err.status === 503 && !/10\.0\.0\.5|9200/.test(err.message));
    }
    await assert.rejects(failing.forget('x'), ActorUnavailableError);
  });
});
