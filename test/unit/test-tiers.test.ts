// The tier lists of test/tiers.ts name files by path: a renamed or deleted test file must not leave an entry that no
// longer matches anything (a serial file would then run beside the others, a long one start last).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LONG_RUNNING, SERIAL, SMOKE, startOrder } from '../tiers.js';

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
