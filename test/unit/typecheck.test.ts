// The TypeScript type check of the whole project (tsconfig.json: src, actors, supervisor, test, bench, packaging), as
// a test: `npm test` and `npm run test:fast` compile with `npm run build:no-check`, which writes the same JavaScript
// as `npm run build` without checking types (measured: 9 s instead of 19 on the AMD EPYC host, the same files byte
// for byte), and this file checks them. In a full run it is a filler (test/tiers.ts), beside the serial tier.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

it('type-checks every TypeScript file of the project without an error', () => {
  const check = spawnSync(process.execPath, [TSC, '--noEmit', '--pretty', 'false', '-p', 'tsconfig.json'], { cwd: REPO, encoding: 'utf8' });
  assert.equal(check.status, 0, `tsc --noEmit found errors:\n${check.stdout}${check.stderr}`);
});
