// Runs the compiled test files: unit tests first, then integration tests
// (which share the testbed's servers, so files run one at a time).
// Arguments narrow the run to files whose path contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const distTest = fileURLToPath(new URL('.', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const filters = process.argv.slice(2);
const files = ['unit', 'integration']
  .flatMap((suite) => testFiles(join(distTest, suite)))
  .filter((f) => filters.length === 0 || filters.some((s) => relative(distTest, f).includes(s)));

if (files.length === 0) {
  process.stderr.write(`no test files match ${filters.join(' ')}\n`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=600000', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
