import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, loadConfig, readIndexerPassword, type Config } from '../../../src/config/index.js';
import { MINIMAL_CONFIG, repoPath, writeTempFile } from './temp-config.js';

/** A config whose indexer password file has `content` and `mode`. */
function configWithSecret(content: string, mode = 0o600): { config: Config; secretFile: string } {
  const secretFile = writeTempFile(content, 'indexer.secret');
  chmodSync(secretFile, mode);
  return { config: configPointingAt(secretFile), secretFile };
}

function configPointingAt(secretFile: string): Config {
  return loadConfig(configFilePointingAt(secretFile)).config;
}

function configFilePointingAt(secretFile: string): string {
  return writeTempFile(MINIMAL_CONFIG.replace('    user: svc-indexer\n', `    user: svc-indexer\n    password_file: ${secretFile}\n`));
}

test('exactly one trailing LF is stripped', () => {
  assert.equal(readIndexerPassword(configWithSecret('Geheim!42\n').config), 'Geheim!42');
});

test('two trailing line breaks are refused, naming the file and the fix', () => {
  for (const content of ['Geheim!42\n\n', 'Geheim!42\r\n\r\n', 'Geheim!42\n\r\n']) {
    const { config, secretFile } = configWithSecret(content);
    assert.throws(() => readIndexerPassword(config), {
      name: 'ConfigError',
      message: `smb.indexer_service_account.password_file: ${secretFile} ends with more than one line break; ` +
        'write the password of svc-indexer followed by at most one newline into it',
    });
  }
});

test('fileproxy serve refuses to start on a password file with two trailing line breaks', () => {
  const secretFile = writeTempFile('Geheim!42\n\n', 'indexer.secret');
  chmodSync(secretFile, 0o600);
  const serve = spawnSync(process.execPath, [repoPath('dist/src/cli/main.js'), 'serve', '--config', configFilePointingAt(secretFile)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(serve.status, 1);
  assert.equal(serve.stderr, `smb.indexer_service_account.password_file: ${secretFile} ends with more than one line break; ` +
    'write the password of svc-indexer followed by at most one newline into it\nnot starting.\n');
});

test('a trailing CRLF is stripped as one line break', () => {
  assert.equal(readIndexerPassword(configWithSecret('Geheim!42\r\n').config), 'Geheim!42');
});

test('other whitespace is part of the password', () => {
  assert.equal(readIndexerPassword(configWithSecret(' Geheim 42 \t').config), ' Geheim 42 \t');
  assert.equal(readIndexerPassword(configWithSecret('Geheim\r\r\n').config), 'Geheim\r');
});

test('a file readable by group or others is refused with its mode and the chmod to run', () => {
  for (const mode of [0o644, 0o640, 0o604, 0o620, 0o602]) {
    const { config, secretFile } = configWithSecret('Geheim!42\n', mode);
    const shownMode = mode.toString(8);
    assert.throws(() => readIndexerPassword(config), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(
        error.message,
        `smb.indexer_service_account.password_file: ${secretFile} has mode ${shownMode}, ` +
          `so group or others may access it; run chmod 600 ${secretFile}`,
      );
      return true;
    });
  }
});

test('mode 400 (read-only for the owner) is accepted', () => {
  assert.equal(readIndexerPassword(configWithSecret('Geheim!42\n', 0o400).config), 'Geheim!42');
});

test('a missing password file is a clear error', () => {
  const missing = `${writeTempFile('', 'placeholder')}-missing`;
  assert.throws(() => readIndexerPassword(configPointingAt(missing)), {
    name: 'ConfigError',
    message: new RegExp(`${missing} does not exist; write the password of svc-indexer into it and run chmod 600`),
  });
});

test('an empty password file is refused', () => {
  const { config } = configWithSecret('\n');
  assert.throws(() => readIndexerPassword(config), { name: 'ConfigError', message: /is empty; write the password of svc-indexer/ });
});

test('a directory is refused', () => {
  const { secretFile } = configWithSecret('x');
  const directory = secretFile.slice(0, secretFile.lastIndexOf('/'));
  chmodSync(directory, 0o700);
  assert.throws(() => readIndexerPassword(configPointingAt(directory)), { name: 'ConfigError', message: /is not a regular file/ });
});

test('the secret is read at call time, not cached at load time', () => {
  const { config, secretFile } = configWithSecret('old\n');
  writeFileSync(secretFile, 'new\n');
  assert.equal(readIndexerPassword(config), 'new');
});
