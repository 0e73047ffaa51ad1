// The indexer account's password lives in its own file, readable by the service user only.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import type { Config } from './schema.js';

const PASSWORD_FILE_KEY = 'smb.indexer_service_account.password_file';

/**
 * Reads the password of smb.indexer_service_account. Refuses files that group or others may access
 * (the spec demands mode 600); strips exactly one trailing line break, keeps every other character.
 * A second trailing line break is refused rather than kept: an editor or `echo` added it, and a
 * password ending in a newline would only show as failed logins of the indexer account.
 */
export function readIndexerPassword(config: Config): string {
  const file = config.smb.indexer_service_account.password_file;
  const fail = (message: string): never => {
    // Not located in config.yml: the problem is the file it points to, named in the message.
    throw new ConfigError(file, [{ line: undefined, path: PASSWORD_FILE_KEY, message }], [], `${PASSWORD_FILE_KEY}: ${message}`);
  };

  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return fail(
        `${file} does not exist; write the password of ${config.smb.indexer_service_account.user} into it and run chmod 600 ${file}`,
      );
    }
    if (code === 'EACCES') return fail(`cannot read ${file}: permission denied (it must belong to the service user)`);
    return fail(`cannot read ${file}: ${String(error)}`);
  }
  try {
    // Check the opened file itself, so that it cannot be swapped between check and read.
    const stat = fstatSync(fd);
    if (!stat.isFile()) return fail(`${file} is not a regular file`);
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      return fail(`${file} has mode ${mode.toString(8).padStart(3, '0')}, so group or others may access it; run chmod 600 ${file}`);
    }
    const password = readFileSync(fd, 'utf8').replace(/\r?\n$/, '');
    if (password === '') return fail(`${file} is empty; write the password of ${config.smb.indexer_service_account.user} into it`);
    if (/\r?\n$/.test(password)) {
      return fail(`${file} ends with more than one line break; write the password followed by at most one newline into it`);
    }
    return password;
  } finally {
    closeSync(fd);
  }
}
