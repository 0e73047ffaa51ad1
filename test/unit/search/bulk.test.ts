// BulkIndexer batching logic against a scripted stand-in for the client's bulk(); the real
// Elasticsearch is exercised in test/integration/search/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client, estypes } from '@elastic/elasticsearch';
import { BulkIndexer } from '../../../src/search/bulk.js';
import type { WikiDocument } from '../../../src/wiki/document.js';

type BulkCall = { index: string; operations: unknown[] };

function doc(id: string, title = id): WikiDocument {
  return { id, title } as WikiDocument;
}

/** A client whose bulk() records calls and answers with `answer` (or waits for `gate` first). */
function fakeClient(answer: (call: BulkCall) => estypes.BulkResponse | Error, gate?: () => Promise<void>) {
  const calls: BulkCall[] = [];
  const client = {
    async bulk(call: BulkCall): Promise<estypes.BulkResponse> {
      calls.push(call);
      if (gate) await gate();
      const result = answer(call);
      if (result instanceof Error) throw result;
      return result;
    },
  } as unknown as Client;
  return { client, calls };
}

function okResponse(call: BulkCall): estypes.BulkResponse {
  const items = call.operations
    .filter((line) => typeof line === 'object' && line !== null && ('index' in line || 'delete' in line))
    .map((line) => {
      const [action, meta] = Object.entries(line as object)[0] as [string, { _id: string }];
      return { [action]: { _id: meta._id, _index: 'x', status: action === 'delete' ? 404 : 201 } };
    });
  return { took: 1, errors: false, items } as estypes.BulkResponse;
}

describe('BulkIndexer', () => {
  it('sends a batch when it is full, last operation per id winning', async () => {
    const { client, calls } = fakeClient(okResponse);
    const writer = new BulkIndexer({ client, index: 'test-alias', maxOperations: 3, flushIntervalMs: 60_000 });
    writer.upsert(doc('a', 'first'));
    writer.upsert(doc('b'));
    writer.upsert(doc('a', 'second'));
    assert.equal(calls.length, 0, 'two distinct ids do not fill a batch of 3');
    writer.delete('c');
    await writer.flush();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.index, 'test-alias');
    assert.equal((calls[0] as { require_alias?: boolean }).require_alias, true, 'never auto-creates an index under the alias name');
    assert.deepEqual(calls[0]!.operations, [
      { index: { _id: 'a' } },
      { title: 'second' },
      { index: { _id: 'b' } },
      { title: 'b' },
      { delete: { _id: 'c' } },
    ]);
    assert.deepEqual(writer.stats, { upserted: 2, deleted: 1, failed: 0, dropped: 0, batches: 1 });
  });

  it('sends a partial batch after the flush interval', async () => {
    const { client, calls } = fakeClient(okResponse);
    const writer = new BulkIndexer({ client, maxOperations: 100, flushIntervalMs: 30 });
    writer.upsert(doc('a'));
    assert.equal(calls.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(calls.length, 1);
    assert.equal(writer.pendingCount, 0);
    await writer.close();
  });

  it('counts documents Elasticsearch rejects one by one', async () => {
    const { client } = fakeClient(() => ({
      took: 1,
      errors: true,
      items: [
        { index: { _id: 'a', _index: 'x', status: 201 } },
        { index: { _id: 'b', _index: 'x', status: 400, error: { type: 'strict_dynamic_mapping_exception', reason: 'no' } } },
      ],
    }));
    const warnings: object[] = [];
    const writer = new BulkIndexer({ client, log: { info: () => undefined, warn: (details) => warnings.push(details) } });
    writer.upsert(doc('a'));
    writer.upsert(doc('b'));
    await writer.flush();
    assert.deepEqual(writer.stats, { upserted: 1, deleted: 0, failed: 1, dropped: 0, batches: 1 });
    assert.equal(warnings.length, 1);
  });

  it('drops and counts a batch Elasticsearch does not take, and never sends it again', async () => {
    const { client, calls } = fakeClient(() => new Error('connect ECONNREFUSED 127.0.0.1:9200'));
    const writer = new BulkIndexer({ client, maxOperations: 10, flushIntervalMs: 60_000 });
    writer.upsert(doc('a'));
    writer.delete('b');
    await writer.flush();
    await writer.flush();
    assert.equal(calls.length, 1);
    assert.equal(writer.pendingCount, 0);
    assert.deepEqual(writer.stats, { upserted: 0, deleted: 0, failed: 0, dropped: 2, batches: 1 });
  });

  it('holds at most one batch while another is in flight and drops the rest', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { client, calls } = fakeClient(okResponse, () => released);
    const writer = new BulkIndexer({ client, maxOperations: 2, flushIntervalMs: 60_000 });
    for (const id of ['a', 'b']) writer.upsert(doc(id)); // full: sent, now in flight
    for (const id of ['c', 'd']) writer.upsert(doc(id)); // the next batch, full
    for (const id of ['e', 'f', 'g']) writer.upsert(doc(id)); // no room
    assert.equal(calls.length, 1);
    assert.equal(writer.stats.dropped, 3);
    release();
    await writer.flush();
    assert.equal(calls.length, 2);
    assert.deepEqual(writer.stats, { upserted: 4, deleted: 0, failed: 0, dropped: 3, batches: 2 });
  });

  it('drops operations after close', async () => {
    const { client, calls } = fakeClient(okResponse);
    const writer = new BulkIndexer({ client });
    writer.upsert(doc('a'));
    await writer.close();
    writer.upsert(doc('b'));
    assert.equal(calls.length, 1);
    assert.equal(writer.stats.dropped, 1);
  });
});
