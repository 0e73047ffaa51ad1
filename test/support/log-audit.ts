// The service logs of one test run must never contain a secret, nor a share path
// (a file or folder under a share: it may say whose class or case it is). test/run-tests.ts
// gives every test process a log directory (FILEPROXY_TEST_LOG_DIR); startService
// writes each service's output there, the fetch check (openapi-check.ts) notes every
// webhook API key the tests see (and tests note the secrets they make, such as an
// Elasticsearch API key) and every share path a WebDAV request of a test names, and
// after the run the logs are searched for those, for every password of the testbed and
// for every path on the testbed's shares.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestbedEnv } from '../testbed/env.js';

export const LOG_DIR_VARIABLE = 'FILEPROXY_TEST_LOG_DIR';
const NOTED_SECRETS_FILE = 'noted-secrets.txt';
const NOTED_PATHS_FILE = 'noted-share-paths.txt';
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

const notedPaths = new Set<string>();

/** Remembers a share path a test named (a WebDAV request's): no log line may carry it. */
export function noteSharePath(path: string): void {
  const dir = runLogDir();
  const key = comparable(path);
  if (dir === undefined || key === '' || notedPaths.has(key)) return;
  notedPaths.add(key);
  appendFileSync(join(dir, NOTED_PATHS_FILE), `${key}\n`);
}


/** A share-relative path as the audit compares it: '/' between segments, none around, lower case. */
function comparable(path: string): string {
  return path.replace(/\\+/g, '/').replace(/\/+/g, '/').replace(/^\/|\/$/g, '').normalize('NFC').toLowerCase();
}

/** Every path on the testbed's shares now (their folders on this host), and the share paths noted in `dir`. */
export function sharePathsOfRun(env: TestbedEnv, dir: string): Set<string> {
  const paths = new Set<string>();
  for (const share of env.smb.shares) {
    if (!existsSync(share.path)) continue;
    for (const entry of readdirSync(share.path, { recursive: true, withFileTypes: true })) {
      paths.add(comparable(relative(share.path, join(entry.parentPath, entry.name))));
    }
  }
  const notedFile = join(dir, NOTED_PATHS_FILE);
  if (existsSync(notedFile)) for (const path of readFileSync(notedFile, 'utf8').split('\n')) if (path !== '') paths.add(path);
  return paths;
}

export interface PathLeak {
  file: string;
  line: number;
  /** What the line carries that is a share path. */
  path: string;
}

/** A `.wiki` folder anywhere in a path with a separator: a share path whatever the tests noted. */
const THROUGH_WIKI = /(^|\/)\.wiki(\/|$)/;

/**
 * Where in `files` a line carries a share path: a JSON string that is one of `paths` (a folder at the share root
 * logged on its own), or a word of a line with a separator in it ('/' or '\\', JSON-escaped or not) that is, or
 * ends in, one of `paths` (also after a share name: `share\\folder\\page.md`), or that goes through a `.wiki` folder.
 */
export function findSharePaths(files: readonly string[], paths: ReadonlySet<string>): PathLeak[] {
  const leaks: PathLeak[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      const found = sharePathIn(text, paths);
      if (found !== undefined) leaks.push({ file, line: i + 1, path: found });
    });
  }
  return leaks;
}

/**
 * Fields whose values the service echoes from its caller and never takes from a share: a webhook's event id is the
 * sender's own name for its event. The abuse campaigns send hostile ones, and one of them is now and then a share path
 * by chance ('.' glued to 'wiki' is '.wiki', a folder at a share's root).
 */
const CALLER_ECHOES = /"event_id":"(?:[^"\\]|\\.)*"/g;

function sharePathIn(line: string, paths: ReadonlySet<string>): string | undefined {
  const text = line.replace(CALLER_ECHOES, '"event_id":""');
  for (const value of text.split('"')) {
    if (paths.has(comparable(value))) return value;
    for (const word of value.split(/[\s'`(),;:]+/)) {
      if (!/[\\/]/.test(word)) continue;
      const segments = comparable(word).split('/');
      for (let start = 0; start < segments.length; start++) {
        const tail = segments.slice(start).join('/');
        if (paths.has(tail) || THROUGH_WIKI.test(tail)) return word;
      }
    }
  }
  return undefined;
}
