// Runs test files (the arguments narrow them, as for run-tests.js) with the testbed in its NTLM-off mode
// (`up --ntlm=off`: the file server refuses NTLM and everything logs on with Kerberos, test/testbed/README.md),
// then brings the testbed back up with NTLM on, whatever the result, so that the next run finds the usual testbed.
// The exit code is the first failure's.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('testbed/cli.js', import.meta.url));
const runTests = fileURLToPath(new URL('run-tests.js', import.meta.url));

function run(args: string[]): number {
  return spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;
}

const up = run([cli, 'up', '--ntlm=off', '--es-jit=client']);
const tests = up === 0 ? run([runTests, ...process.argv.slice(2)]) : up;
const restored = run([cli, 'up', '--es-jit=client']);
process.exit(tests !== 0 ? tests : restored);
