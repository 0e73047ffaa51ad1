// Keys of the login caches (src/common/credential-key.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { credentialKeys } from '../../../src/common/credential-key.js';

describe('credentialKeys', () => {
  it('gives one pair one key, and pairs that concatenate alike different keys', () => {
    const key = credentialKeys();
    assert.equal(key('anna', 'secret'), key('anna', 'secret'));
    assert.notEqual(key('a:b', 'c'), key('a', 'b:c'));
    assert.notEqual(key('anna', 'secret'), key('anna', 'Secret'));
  });

  it('keys under a key of each keyer\'s own, and never holds the password in the key', () => {
    const [one, two] = [credentialKeys(), credentialKeys()];
    assert.notEqual(one('anna', 'secret'), two('anna', 'secret'));
    assert.doesNotMatch(one('anna', 'secret'), /secret/);
  });
});
