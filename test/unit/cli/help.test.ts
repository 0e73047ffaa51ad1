// Every command of `fileproxy` describes itself with --help, as a man page would: usage, what it does, its
// options and exit status, on stdout with exit 0 (the package's only documentation besides the README).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FILEPROXY_CLI } from '../../support/cli-path.js';

const COMMANDS = ['serve', 'check-config', 'doctor', 'reindex'];

/** The CLI's output and exit status; one that hangs is caught by the runner's test timeout. */
function fileproxy(...args: string[]) {
  return spawnSync(process.execPath, [FILEPROXY_CLI, ...args], { encoding: 'utf8' });
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

  for (const command of ['serve', 'check-config', 'doctor']) {
    it(`refuses a bad command line of ${command} with its usage on stderr and exit 2`, () => {
      for (const args of [['--bogus'], ['--config'], ['--config='], ['--help', '--config', 'x.yml']]) {
        const run = fileproxy(command, ...args);
        assert.equal(run.status, 2, args.join(' '));
        assert.equal(run.stdout, '');
        assert.equal(run.stderr, `usage: fileproxy ${command} [--config <file>]\n`);
      }
    });
  }

  it('prints the version of package.json with --version and -V', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = fileproxy(flag);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '');
      assert.equal(run.stdout, `fileproxy ${version} (Node.js ${process.version})\n`);
    }
  });

  it('names the version in the first line of doctor, before its checks', () => {
    const run = fileproxy('doctor', '--config', '/nonexistent/config.yml');
    assert.equal(run.status, 1);
    const [first, second] = run.stdout.split('\n');
    assert.equal(first, fileproxy('--version').stdout.trimEnd());
    assert.match(second ?? '', /^FAIL config/);
  });

  it('refuses an unknown command with the list of commands and exit 2', () => {
    const run = fileproxy('serv');
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^unknown command: serv\n\nusage: fileproxy <command>/);
  });

  it('refuses to start on a Node.js older than 24 with a message naming the version it found', () => {
    // This Node, made to say it is 22.11 (the last before node:http can share a port between threads).
    const older = 'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "22.11.0" } });'
      + 'Object.defineProperty(process, "version", { value: "v22.11.0" });';
    const run = spawnSync(process.execPath, ['--import', older, FILEPROXY_CLI, 'serve', '--config', '/nonexistent.yml'], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^fileproxy needs Node\.js 24 or newer; this is Node\.js v22\.11\.0 \(/);
  });
});
