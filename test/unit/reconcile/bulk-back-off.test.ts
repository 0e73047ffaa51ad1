// The indexer's answer to Elasticsearch's back-pressure: the back-off's waits (growing, with jitter, bounded in
// total) and sendBulk sending again only what was pushed back (429), in its order, against scripted answers; a real
// Elasticsearch with a small write queue pushes back in test/integration/reconcile/back-pressure.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errors, type estypes } from '@elastic/elasticsearch';
import { BackOff, type BackOffPolicy } from '../../../src/indexing/indexer/back-off.js';
import { sendBulk } from '../../../src/indexing/indexer/send-bulk.js';

const POLICY: BackOffPolicy = { firstMs: 100, maxMs: 1_000, totalMs: 3_000 };

/** A back-off that records its waits instead of waiting, with `random` fixed. */
function recordedBackOff(random = 0.5, policy = POLICY): { backOff: BackOff; waits: number[] } {
  const waits: number[] = [];
  return { backOff: new BackOff(policy, () => random, async (ms) => waits.push(ms)), waits };
}

const REJECTED = { type: 'es_rejected_execution_exception', reason: 'rejected execution of coordinating operation' };

/** One operation's NDJSON lines, as write-batch.ts makes them. */
const operation = (id: string) => `{"index":{"_id":"${id}"}}\n{"title":"${id}"}\n`;
const idsOf = (body: string) => body.split('\n').filter((line) => line.startsWith('{"index"')).map((line) => (JSON.parse(line) as { index: { _id: string } }).index._id);

/** A `post` that answers each id with `status(id, attempt)` (201 when taken) and records the ids of every request. */
function scripted(status: (id: string, attempt: number) => number | Error) {
  const requests: string[][] = [];
  const post = async (body: string): Promise<estypes.BulkResponse> => {
    const ids = idsOf(body);
    requests.push(ids);
    const answers = ids.map((id) => status(id, requests.length));
    const whole = answers.find((answer) => answer instanceof Error);
    if (whole) throw whole;
    const items = ids.map((id, i) => {
      const code = answers[i] as number;
      const error = code === 429 ? REJECTED : code >= 400 ? { type: 'mapper_parsing_exception', reason: 'bad field' } : undefined;
      return { index: { _id: id, _index: 'x', status: code, ...(error ? { error } : {}) } };
    });
    return { took: 1, errors: items.some((item) => item.index.status >= 400), items } as estypes.BulkResponse;
  };
  return { post, requests };
}

function pushedBackAsAWhole(): errors.ResponseError {
  return new errors.ResponseError({
    body: { error: { ...REJECTED, root_cause: [REJECTED] }, status: 429 },
    statusCode: 429,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
}

describe('the back-off of the indexer', () => {
  it('waits longer each time, between half and all of a doubling ceiling, up to the longest wait, the last one cut to the bound', async () => {
    for (const [random, expected] of [
      [0, [50, 100, 200, 400, 500, 500, 500, 500, 250]],
      [1, [100, 200, 400, 800, 1000, 500]],
    ] as const) {
      const { backOff, waits } = recordedBackOff(random);
      while (await backOff.next());
      assert.deepEqual(waits, expected, `random ${random}`);
    }
  });

  it('stops at the bound: the waits add up to it, and later calls return false without waiting', async () => {
    const { backOff, waits } = recordedBackOff(0.7);
    while (await backOff.next());
    assert.equal(waits.reduce((a, b) => a + b, 0), POLICY.totalMs);
    assert.deepEqual(backOff.spent, { waits: waits.length, ms: POLICY.totalMs });
    assert.equal(await backOff.next(), false);
    assert.equal(waits.length, backOff.spent.waits);
  });
});

describe('sendBulk', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];

  it('sends again only the operations answered 429, in their order, until they are taken', async () => {
    const { post, requests } = scripted((id, attempt) => (['b', 'd'].includes(id) && attempt < 3 ? 429 : 201));
    const { backOff, waits } = recordedBackOff();
    const sent = await sendBulk(ids.map(operation), post, backOff);
    assert.deepEqual(requests, [ids, ['b', 'd'], ['b', 'd']]);
    assert.deepEqual(sent, { written: { upserted: 5, deleted: 0, rejected: 0, reasons: [] }, pushedBack: { backOffs: 2, resent: 4 } });
    assert.equal(waits.length, 2);
  });

  it('sends a whole request answered 429 again as it was', async () => {
    const { post, requests } = scripted((_id, attempt) => (attempt === 1 ? pushedBackAsAWhole() : 201));
    const sent = await sendBulk(ids.map(operation), post, recordedBackOff().backOff);
    assert.deepEqual(requests, [ids, ids]);
    assert.deepEqual(sent, { written: { upserted: 5, deleted: 0, rejected: 0, reasons: [] }, pushedBack: { backOffs: 1, resent: 5 } });
  });

  it('does not send again what was refused for what it is, nor a request that failed otherwise', async () => {
    const refused = scripted((id) => (id === 'c' ? 400 : 201));
    const sent = await sendBulk(ids.map(operation), refused.post, recordedBackOff().backOff);
    assert.equal(refused.requests.length, 1);
    assert.deepEqual(sent, { written: { upserted: 4, deleted: 0, rejected: 1, reasons: ['c: mapper_parsing_exception bad field'] }, pushedBack: { backOffs: 0, resent: 0 } });

    const unreachable = scripted(() => new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'));
    const failed = await sendBulk(ids.map(operation), unreachable.post, recordedBackOff().backOff);
    assert.equal(unreachable.requests.length, 1);
    assert.match('failed' in failed ? failed.failed : '', /ECONNREFUSED/);
  });

  it('once the bound is used up, counts what is still pushed back as refused, saying for how long', async () => {
    const { post, requests } = scripted((id) => (id === 'e' ? 429 : id === 'a' ? 400 : 201));
    const { backOff, waits } = recordedBackOff();
    const sent = await sendBulk(ids.map(operation), post, backOff);
    assert.equal(requests.length, waits.length + 1);
    assert.ok(requests.slice(1).every((r) => r.join() === 'e'));
    assert.ok('written' in sent);
    assert.equal(sent.written.upserted, 3);
    assert.equal(sent.written.rejected, 2);
    assert.deepEqual(sent.written.reasons, [
      'pushed back by Elasticsearch (429) for 3.0 s: e: es_rejected_execution_exception rejected execution of coordinating operation',
      'a: mapper_parsing_exception bad field',
    ]);
    assert.deepEqual(sent.pushedBack, { backOffs: waits.length, resent: waits.length });
  });

  it('once the bound is used up, fails a batch whose whole request is still pushed back, saying for how long', async () => {
    const { post } = scripted(() => pushedBackAsAWhole());
    const sent = await sendBulk(ids.map(operation), post, recordedBackOff().backOff);
    assert.ok('failed' in sent);
    assert.equal(sent.failed, 'pushed back by Elasticsearch (429) for 3.0 s: es_rejected_execution_exception rejected execution of coordinating operation');
  });
});
