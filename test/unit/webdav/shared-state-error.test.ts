import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errors } from '@elastic/elasticsearch';
import { silentLog } from '../../../src/common/logger.js';
import { davHttpError } from '../../../src/webdav/errors.js';
import { ClusterCalls } from '../../../src/webdav/cluster-calls.js';
import { SharedStateUnavailableError } from '../../../src/webdav/shared-state-error.js';

const at = { server: 'fs1', share: 'schule', path: 'page.md' };

describe('a failure of the cluster that keeps the WebDAV state of several proxies', () => {
  it('is a SharedStateUnavailableError naming what failed, logged once per streak; other errors pass as they are', async () => {
    const warned: string[] = [];
    const calls = new ClusterCalls('x-dav-locks', { ...silentLog, warn: (_d, message) => warned.push(message) });
    const down = () => Promise.reject(new errors.ConnectionError('connect ECONNREFUSED'));
    await assert.rejects(calls.run('reading the locks', down), (err: Error) => err instanceof SharedStateUnavailableError && /reading the locks in x-dav-locks/.test(err.message));
    await assert.rejects(calls.run('reading the locks', down), SharedStateUnavailableError);
    assert.equal(warned.length, 1);
    assert.equal(await calls.run('reading the locks', async () => 'up'), 'up');
    await assert.rejects(calls.run('reading the locks', down), SharedStateUnavailableError);
    assert.equal(warned.length, 2, 'a new streak is logged again');
    await assert.rejects(calls.run('reading the locks', () => Promise.reject(new TypeError('a bug'))), TypeError);
  });

  it('is answered 503 shared_state_unavailable with Retry-After, also as it arrives from the actor (name and code only)', () => {
    for (const err of [new SharedStateUnavailableError('reading the locks in x: down'), Object.assign(new Error('reading the locks in x: down'), { code: 'DAV_SHARED_STATE_UNAVAILABLE' })]) {
      const answer = davHttpError(err, at);
      assert.equal(answer?.status, 503);
      assert.equal(answer?.code, 'shared_state_unavailable');
      assert.equal(answer?.headers['retry-after'], '1');
      assert.doesNotMatch(answer?.message ?? '', /x: down/, 'the cluster\'s answer stays in the log');
    }
  });
});
