// What a log line says about a failure of work that calls Elasticsearch: the cluster's refusals in plain words,
// any other error as src/common describes it (an SMB error without its path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '@elastic/elasticsearch';
import { describeSearchError, explainSearchFailure } from '../../../src/search/search-failure.js';
import { NtStatus, SmbStatusError } from '../../../src/smb/index.js';

function refused(statusCode: number, reason: string): errors.ResponseError {
  return new errors.ResponseError({ body: { error: { reason }, status: statusCode }, statusCode, headers: {}, warnings: null, meta: {} as never });
}

test('the cluster\'s refusals say which setting to look at', () => {
  assert.deepEqual(explainSearchFailure(refused(401, 'API key: invalid ApiKey value')), {
    kind: 'credentials',
    message: 'authentication failed: Elasticsearch did not accept the login of elasticsearch.auth (401, API key: invalid ApiKey value)',
  });
  assert.equal(explainSearchFailure(refused(403, 'action [indices:data/read] is unauthorized')).kind, 'privilege');
  assert.equal(describeSearchError(refused(401, 'x')).error, explainSearchFailure(refused(401, 'x')).message);
});

test('an error that is not the cluster\'s is described as src/common describes it: an SMB error without its path', () => {
  const smb = new SmbStatusError(NtStatus.ACCESS_DENIED, 'CREATE wiki\\Lehrer\\noten.md');
  assert.deepEqual(describeSearchError(smb), { error: 'SmbStatusError STATUS_ACCESS_DENIED' });
  assert.deepEqual(explainSearchFailure(smb), { kind: 'other', message: 'SmbStatusError STATUS_ACCESS_DENIED' });
  assert.deepEqual(describeSearchError(new TypeError('bad')), { error: 'TypeError: bad' });
});
