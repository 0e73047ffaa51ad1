// The tier lists of test/tiers.ts name files by path: a renamed or deleted test file must not leave an entry that no
// longer matches anything (a serial file would then run beside the others, a long one start last).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FILLERS, LONG_RUNNING, SERIAL, SMOKE, startOrder, tierOf, tiersInRun } from '../tiers.js';

const distTest = fileURLToPath(new URL('..', import.meta.url));
/** The TypeScript of the test files, beside dist/. */
const sourceTest = fileURLToPath(new URL('../../../test/', import.meta.url));

it('names only test files and folders that exist', () => {
  const missing = [
    ...SERIAL.map(({ path }) => (path.endsWith('/') ? path : `${path}.test.js`)),
    ...[...SMOKE, ...LONG_RUNNING, ...FILLERS].map((path) => `${path}.test.js`),
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

/** What a file that may get a core late must not hold: a timer, a clock, a time limit. */
const TIMED = /\b(setTimeout|setInterval|setImmediate|Date\.now|performance\.now|hrtime|timeout|Timeout|mock\.timers)\b/;
/** What a file beside the serial tier must not import: the testbed, which that tier's files stop and change, or a service. */
const SERVER_USE = /from '[./]*(testbed\/|support\/service\.js)/;

it('lets only files that use no server and hold no timer, clock or time limit fill the serial tier\'s idle cores', () => {
  const code = (path: string) => readFileSync(`${sourceTest}${path}.test.ts`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  assert.deepEqual(FILLERS.filter((path) => TIMED.test(code(path))), [], 'fillers with a timer, clock or time limit');
  assert.deepEqual(FILLERS.filter((path) => SERVER_USE.test(code(path))), [], 'fillers that use the testbed or a service');
  assert.ok(TIMED.test('await new Promise((resolve) => setTimeout(resolve, 100));'), 'the check finds a planted timer');
  assert.ok(SERVER_USE.test("import { startService } from '../../support/service.js';"), 'the check finds a planted service');
  assert.ok(SERVER_USE.test("import { readTestbedEnv } from '../testbed/env.js';"), 'the check finds a planted testbed');
});

it('runs the fillers beside the serial tier, and in the unit tier when the run has no serial file', () => {
  const [filler] = FILLERS as [string];
  const files = [`${filler}.test.js`, 'unit/other.test.js', 'faults/cluster.test.js'];
  assert.equal(tiersInRun(files).get(`${filler}.test.js`), 'filler');
  assert.equal(tiersInRun(files.slice(0, 2)).get(`${filler}.test.js`), 'unit');
  assert.equal(tiersInRun(files).get('unit/other.test.js'), 'unit');
});
