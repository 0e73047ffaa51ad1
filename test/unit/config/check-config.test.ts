// Runs runCheckConfig in a child process to see its exit code and exactly what it prints where.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { MINIMAL_CONFIG, repoPath, writeTempFile } from './temp-config.js';

const CHECK_CONFIG_MODULE = repoPath('dist/src/cli/check-config.js');

function checkConfig(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const script = `import { runCheckConfig } from ${JSON.stringify(CHECK_CONFIG_MODULE)};
process.exitCode = await runCheckConfig(process.argv.slice(1));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, '--', ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('the example config passes without any secret file present', () => {
  const file = repoPath('config/config.example.yml');
  assert.deepEqual(checkConfig('--config', file), { status: 0, stdout: `OK ${file}\n`, stderr: '' });
});

test('warnings of a valid config go to stderr, exit code stays 0', () => {
  const file = writeTempFile(MINIMAL_CONFIG + 'colour: blue\n');
  assert.deepEqual(checkConfig(`--config=${file}`), {
    status: 0,
    stdout: `OK ${file}\n`,
    stderr: 'warning: config.yml:16 colour: unknown key\n',
  });
});

test('an invalid config prints each issue and exits 1', () => {
  const file = writeTempFile(MINIMAL_CONFIG.replace('domain: SCHULE', 'domain: [7]') + 'http:\n  port: 0\n');
  assert.deepEqual(checkConfig('--config', file), {
    status: 1,
    stdout: '',
    stderr: 'config.yml:3 smb.domain: must be a string\nconfig.yml:17 http.port: must be an integer between 1 and 65535\n',
  });
});

test('bad usage exits 2 with the usage line', () => {
  for (const args of [['--config'], ['--conf', 'x.yml'], ['x.yml'], ['--config=']]) {
    const result = checkConfig(...args);
    assert.equal(result.status, 2, JSON.stringify(args));
    assert.match(result.stderr, /^usage: fileproxy check-config \[--config <file>\]/);
  }
});
