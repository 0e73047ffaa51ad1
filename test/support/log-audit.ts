// The service logs of one test run must never contain a secret. test/run-tests.ts
// gives every test process a log directory (FILEPROXY_TEST_LOG_DIR); startService
// writes each service's output there, the fetch check (openapi-check.ts) notes every
// webhook API key the tests see (and tests note the secrets they make, such as an
// Elasticsearch API key), and after the run the logs are searched for those and for
// every password of the testbed.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestbedEnv } from '../testbed/env.js';

export const LOG_DIR_VARIABLE = 'FILEPROXY_TEST_LOG_DIR';
const NOTED_SECRETS_FILE = 'noted-secrets.txt';
const SERVICE_LOG = /^service-.*\.log$/;

/** The log directory of this test run, if the run has one. */
export function runLogDir(): string | undefined {
  return process.env[LOG_DIR_VARIABLE] || undefined;
}

/** Where a service started by this process on `port` writes its output. */
export function serviceLogFile(dir: string, port: number): string {
  return join(dir, `service-${process.pid}-${port}.log`);
}

const notedSecrets = new Set<string>();

/** Remembers a secret a test saw or made: a webhook API key (revealed, or sent to the intake), a password, an API key. */
export function noteSecret(secret: string): void {
  const dir = runLogDir();
  if (dir === undefined || secret === '' || notedSecrets.has(secret)) return;
  notedSecrets.add(secret);
  appendFileSync(join(dir, NOTED_SECRETS_FILE), `${secret}\n`);
}

export interface Secret {
  /** Says which secret it is, without showing it. */
  name: string;
  value: string;
}

/** Every password of the testbed, also as the Basic credentials that carry it, and the secrets noted in `dir`. */
export function secretsOfRun(env: TestbedEnv, dir: string): Secret[] {
  const accounts: [string, { user: string; password: string }][] = [
    ['dc_admin', env.dc_admin], ['admin', env.admin], ['indexer', env.indexer],
    ...Object.entries(env.users).map(([user, u]): [string, { user: string; password: string }] => [`user ${user}`, { user, password: u.password }]),
  ];
  const secrets: Secret[] = [];
  for (const [who, { user, password }] of accounts) {
    secrets.push({ name: `password of ${who}`, value: password });
    // As it would appear inside a JSON string of a log line.
    const escaped = JSON.stringify(password).slice(1, -1);
    if (escaped !== password) secrets.push({ name: `password of ${who} (JSON-escaped)`, value: escaped });
    secrets.push({ name: `Basic credentials of ${who}`, value: Buffer.from(`${user}:${password}`).toString('base64') });
  }
  const notedFile = join(dir, NOTED_SECRETS_FILE);
  const noted = existsSync(notedFile) ? readFileSync(notedFile, 'utf8').split('\n').filter((k) => k !== '') : [];
  noted.forEach((secret, i) => secrets.push({ name: `secret noted by a test #${i + 1}`, value: secret }));
  return secrets;
}

export interface Leak {
  file: string;
  line: number;
  secret: string;
}

/** The service logs written into `dir`. */
export function serviceLogsIn(dir: string): string[] {
  return readdirSync(dir).filter((name) => SERVICE_LOG.test(name)).map((name) => join(dir, name));
}

/** Where in `files` a secret occurs (reported by name, never by value). */
export function findSecrets(files: readonly string[], secrets: readonly Secret[]): Leak[] {
  const leaks: Leak[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      for (const secret of secrets) {
        if (text.includes(secret.value)) leaks.push({ file, line: i + 1, secret: secret.name });
      }
    });
  }
  return leaks;
}
