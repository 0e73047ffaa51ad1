// The HTTP transports a test of the http-front's server runs over: node:http always, uWebSockets.js where a build
// of it loads for this Node. Where none does (Node 24 on Debian 12, whose glibc is older than the builds need), the
// test file's uws half runs in a child process under a Node that has a build: UWS_TEST_NODE, else the system's
// /usr/bin/node (Node 20 on Debian 12, with the @trufflesuite build). So the uws transport is tested in CI, not only
// on hosts where it would be chosen.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadUws, type HttpTransport } from '../../actors/http-front/transport.js';

/** Set in the child: run the uws half only, and fail when no build loads there either. */
const UWS_ONLY = 'FILEPROXY_TEST_UWS_ONLY';

/** In the child that runs only the uws half: tests of node:http alone are skipped there (they run in the parent). */
export const uwsHalfOnly = process.env[UWS_ONLY] === '1';

/** The Node that runs uWS here: this one when a build loads for it, else UWS_TEST_NODE or /usr/bin/node. */
export function nodeForUws(): string {
  return 'reasons' in loadUws() ? process.env['UWS_TEST_NODE'] ?? '/usr/bin/node' : process.execPath;
}

/** uWS, or an error naming why no build loads: for tests and benchmarks, which must not fall back. */
export function uwsTransport(): Extract<HttpTransport, { name: 'uws' }> {
  const loaded = loadUws();
  if ('reasons' in loaded) throw new Error(`no uWebSockets.js build loads on Node ${process.version}: ${loaded.reasons.join('; ')}`);
  return { name: 'uws', ...loaded };
}

/** The transports to run `testFile` (its import.meta.url) over in this process. */
export function transportsUnderTest(testFile: string): HttpTransport[] {
  if (uwsHalfOnly) return [uwsTransport()];
  const loaded = loadUws();
  if (!('reasons' in loaded)) return [{ name: 'node' }, { name: 'uws', ...loaded }];
  const otherNode = nodeForUws();
  it(`over uws: the same tests under ${otherNode}, as no uWebSockets.js build loads on Node ${process.version}`, () => {
    assert.ok(existsSync(otherNode), `no ${otherNode}: set UWS_TEST_NODE to a Node for which a uWebSockets.js build loads (${loaded.reasons.join('; ')})`);
    // Without NODE_TEST_CONTEXT, which would make the child report to this runner instead of printing TAP.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(otherNode, ['--test', '--test-reporter=tap', fileURLToPath(testFile)], {
      env: { ...env, [UWS_ONLY]: '1' }, encoding: 'utf8', timeout: 300_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^# pass [1-9]/m);
    assert.match(run.stdout, /^# fail 0$/m);
  });
  return [{ name: 'node' }];
}
