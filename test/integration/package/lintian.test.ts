// The Debian package as `npm run package`'s script builds it (`--fast`: gzip instead of xz, as the install test's)
// has no lintian errors. A file of its own, apart from the install test, because it needs no server: it runs among
// the fillers beside the serial tier (test/tiers.ts), where lintian's CPU uses cores that tier leaves idle, instead
// of in the parallel tier, where every core-second lengthens the tier.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { buildPackage, lintianErrors } from './package-build.js';

const work = mkdtempSync(join(tmpdir(), 'fileproxy-lintian-'));
after(() => rmSync(work, { recursive: true, force: true }));

it('builds a package with no lintian errors', async () => {
  const deb = await buildPackage(work, '--fast', '--no-lintian');
  assert.deepEqual(await lintianErrors(deb), []);
});
