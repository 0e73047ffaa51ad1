// Secrets live in files of their own, readable by the service user only: the indexer account's password (or keytab) and,
// for an Elasticsearch cluster with security on, its API key or password.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import type { Config } from './schema.js';

const PASSWORD_FILE_KEY = 'smb.indexer_service_account.password_file';

function failOn(file: string, key: string) {
  return (message: string): never => {
    // Not located in config.yml: the problem is the file it points to, named in the message.
    throw new ConfigError(file, [{ line: undefined, path: key, message }], [], `${key}: ${message}`);
  };
}

/**
 * Reads the bytes of a secret file. Refuses files that group or others may access (the spec demands mode 600).
 * `key` is the config key naming the file, `what` what to write into it (both for the messages).
 */
function readSecretBytes(file: string, key: string, what: string): Buffer {
  const fail = failOn(file, key);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return fail(`${file} does not exist; write ${what} into it and run chmod 600 ${file}`);
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
    const bytes = readFileSync(fd);
    if (bytes.length === 0) return fail(`${file} is empty; write ${what} into it`);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a secret file as text (see readSecretBytes); strips exactly one trailing line break, keeps every other
 * character. A second trailing line break is refused rather than kept: an editor or `echo` added it, and a secret
 * ending in a newline would only show as failed logins.
 */
function readSecretFile(file: string, key: string, what: string): string {
  const fail = failOn(file, key);
  const secret = readSecretBytes(file, key, what).toString('utf8').replace(/\r?\n$/, '');
  if (secret === '') return fail(`${file} is empty; write ${what} into it`);
  if (/\r?\n$/.test(secret)) {
    return fail(`${file} ends with more than one line break; write ${what} followed by at most one newline into it`);
  }
  return secret;
}

/** The keytab of smb.indexer_service_account when one is configured (its keys replace the password). */
export function readIndexerKeytab(config: Config): Buffer | undefined {
  const { keytab_file: file, user } = config.smb.indexer_service_account;
  if (file === undefined) return undefined;
  return readSecretBytes(file, 'smb.indexer_service_account.keytab_file', `the keytab of ${user} (samba-tool domain exportkeytab ${file} --principal=${user})`);
}

/** The keytab of kerberos.delegation's service account when delegation is configured. */
export function readDelegationKeytab(config: Config): Buffer | undefined {
  const delegation = config.kerberos?.delegation;
  if (delegation === undefined) return undefined;
  const { keytab_file: file, account } = delegation;
  return readSecretBytes(file, 'kerberos.delegation.keytab_file', `the keytab of ${account} (samba-tool domain exportkeytab ${file} --principal=${account})`);
}

/** The password of smb.indexer_service_account. */
export function readIndexerPassword(config: Config): string {
  const { password_file: file, user } = config.smb.indexer_service_account;
  return readSecretFile(file, PASSWORD_FILE_KEY, `the password of ${user}`);
}

/** How the service logs on to Elasticsearch and whom it trusts there; plain data, handed to every actor. */
interface ElasticsearchSecrets {
  auth?: { apiKey: string } | { username: string; password: string };
  /** PEM of elasticsearch.tls.ca_file. */
  caCertificate?: string;
}

/** Reads the files `elasticsearch.auth` and `elasticsearch.tls` name; nothing when they name none. */
export function readElasticsearchSecrets(config: Config): ElasticsearchSecrets {
  const { auth, tls } = config.elasticsearch;
  const secrets: ElasticsearchSecrets = {};
  if (auth !== undefined && 'api_key_file' in auth) {
    secrets.auth = { apiKey: readSecretFile(auth.api_key_file, 'elasticsearch.auth.api_key_file', 'the encoded API key (the "encoded" value Elasticsearch returned)') };
  } else if (auth !== undefined) {
    secrets.auth = { username: auth.username, password: readSecretFile(auth.password_file, 'elasticsearch.auth.password_file', `the password of ${auth.username}`) };
  }
  if (tls.ca_file !== undefined) {
    const refuse = (message: string): never => {
      throw new ConfigError(tls.ca_file!, [{ line: undefined, path: 'elasticsearch.tls.ca_file', message }], [], `elasticsearch.tls.ca_file: ${message}`);
    };
    try {
      secrets.caCertificate = readFileSync(tls.ca_file, 'utf8');
    } catch (error) {
      return refuse(`cannot read ${tls.ca_file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    // TLS would skip what is not PEM without a word, and every node's certificate would then look untrusted.
    if (!secrets.caCertificate.includes('-----BEGIN CERTIFICATE-----')) {
      refuse(`${tls.ca_file} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's certificate in PEM`);
    }
  }
  return secrets;
}
