// What a log line says about a failure: an error's own description where it has one, else its name and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeError, logDescription, type DescribesItself } from '../../../src/common/describe-error.js';

class PathError extends Error implements DescribesItself {
  override readonly name = 'PathError';
  [logDescription](): string {
    return 'PathError (path left out)';
  }
}

test('an error that describes itself is described by itself, any other by its name and message', () => {
  assert.deepEqual(describeError(new PathError('open /secret/file.md failed')), { error: 'PathError (path left out)' });
  assert.deepEqual(describeError(new RangeError('too many')), { error: 'RangeError: too many' });
  assert.deepEqual(describeError('a thrown string'), { error: 'a thrown string' });
  assert.deepEqual(describeError(undefined), { error: 'undefined' });
  const notAMethod = Object.assign(new Error('plain'), { [logDescription]: 'not a method' });
  assert.deepEqual(describeError(notAMethod), { error: 'Error: plain' });
});
