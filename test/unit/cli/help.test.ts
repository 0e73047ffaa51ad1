// Every command of `fileproxy` describes itself with --help, as a man page would: usage, what it does, its
// options and exit status, on stdout with exit 0 (the package's only documentation besides the README).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const COMMANDS = ['serve', 'check-config', 'doctor', 'reindex'];

function fileproxy(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 10_000 });
}

describe('fileproxy --help', () => {
  it('lists every command', () => {
    const run = fileproxy('--help');
    assert.equal(run.status, 0);
    assert.equal(run.stderr, '');
    for (const command of COMMANDS) assert.match(run.stdout, new RegExp(`^  ${command} `, 'm'));
  });

  for (const command of COMMANDS) {
    it(`describes ${command}: usage, options and exit status`, () => {
      for (const flag of ['--help', '-h']) {
        const run = fileproxy(command, flag);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stderr, '');
        assert.match(run.stdout, new RegExp(`^usage: fileproxy ${command} `));
        assert.match(run.stdout, /--config <file>/);
        assert.match(run.stdout, /^Exit status: 0 /m);
        assert.ok(run.stdout.split('\n').length > 5, `more than a usage line:\n${run.stdout}`);
      }
    });
  }

  it('refuses an unknown command with the list of commands and exit 2', () => {
    const run = fileproxy('serv');
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^unknown command: serv\n\nusage: fileproxy <command>/);
  });
});
