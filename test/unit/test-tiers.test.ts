// The tier lists of test/tiers.ts name files by path: a renamed or deleted test file must not leave an entry that no
// longer matches anything (a serial file would then run beside the others, a long one start last).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LONG_RUNNING, SERIAL, SMOKE, startOrder, tierOf } from '../tiers.js';

const distTest = fileURLToPath(new URL('..', import.meta.url));

it('names only test files and folders that exist', () => {
  const missing = [
    ...SERIAL.map(({ path }) => (path.endsWith('/') ? path : `${path}.test.js`)),
    ...[...SMOKE, ...LONG_RUNNING].map((path) => `${path}.test.js`),
  ].filter((path) => !existsSync(`${distTest}${path}`));
  assert.deepEqual(missing, []);
});

it('starts the long-running files first, in their listed order, and the others as given', () => {
  const [first, second] = LONG_RUNNING as [string, string];
  const files = ['a/one.test.js', `${second}.test.js`, 'b/two.test.js', `${first}.test.js`];
  assert.deepEqual(startOrder(files), [`${first}.test.js`, `${second}.test.js`, 'a/one.test.js', 'b/two.test.js']);
});

it('starts the files of SERIAL entries in the entries\' order, after the long-running ones and before the others', () => {
  const serialFiles = SERIAL.filter(({ path }) => !path.endsWith('/')).map(({ path }) => `${path}.test.js`);
  const [long] = LONG_RUNNING as [string];
  const files = ['z/other.test.js', ...[...serialFiles].reverse(), `${long}.test.js`];
  assert.deepEqual(startOrder(files), [`${long}.test.js`, ...serialFiles, 'z/other.test.js']);
});

it('gives a file of a folder entry the first entry that names it', () => {
  assert.equal(tierOf('faults/cluster.test.js'), 'serial');
  assert.deepEqual(startOrder(['faults/smb.test.js', 'faults/cluster.test.js']), ['faults/cluster.test.js', 'faults/smb.test.js']);
});
