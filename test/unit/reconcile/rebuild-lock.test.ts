/**
 * RebuildLease.acquire's decisions against a scripted Elasticsearch client (the lease against a real one, with
 * several proxies: integration/search/migration and integration/reconcile/shared-index).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errors, type Client } from '@elastic/elasticsearch';
import { RebuildBusyError, RebuildLease } from '../../../src/indexing/reconciler/rebuild-lock.js';

function status(statusCode: number): errors.ResponseError {
  return new errors.ResponseError({ body: { status: statusCode }, statusCode, headers: {}, warnings: null, meta: {} as never });
}

/** A client whose lock document requests answer, in turn, as `answers` say; the requests it got, by kind. */
function scripted(answers: { create: (errors.ResponseError | null)[]; get: (errors.ResponseError | object)[] }) {
  const asked: string[] = [];
  const client = {
    indices: { create: async () => ({}) },
    index: async (request: { op_type?: string }) => {
      asked.push(request.op_type === 'create' ? 'create' : 'take over');
      const answer = request.op_type === 'create' ? answers.create.shift() : null;
      if (answer) throw answer;
      return { _seq_no: 1, _primary_term: 1 };
    },
    delete: async () => ({}),
    get: async () => {
      asked.push('get');
      const answer = answers.get.shift()!;
      if (answer instanceof errors.ResponseError) throw answer;
      return answer;
    },
  } as unknown as Client;
  return { client, asked };
}

test('a lease released between the refused create and the read of its holder is taken on the next try', async () => {
  const { client, asked } = scripted({ create: [status(409), null], get: [status(404)] });
  const lease = await RebuildLease.acquire(client, 'wiki-md', 'wiki-md-v2', 0);
  assert.deepEqual(asked, ['create', 'get', 'create']);
  await lease.release();
});

test('a lease held by another proxy until later refuses; an expired one is taken over', async () => {
  const held = (expiresIn: number) => ({ _source: { holder: 'proxy-b', target: 'wiki-md-v2', expires_at: Date.now() + expiresIn }, _seq_no: 4, _primary_term: 1 });
  const busy = scripted({ create: [status(409)], get: [held(60_000)] });
  await assert.rejects(RebuildLease.acquire(busy.client, 'wiki-md', 'wiki-md-v2', 0), (error) => error instanceof RebuildBusyError && /proxy-b is building wiki-md-v2/.test(error.message));
  const expired = scripted({ create: [status(409)], get: [held(-1000)] });
  const lease = await RebuildLease.acquire(expired.client, 'wiki-md', 'wiki-md-v2', 0);
  assert.deepEqual(expired.asked, ['create', 'get', 'take over']);
  await lease.release();
});
