// Runs the real service (`fileproxy serve`) as a child process against the
// testbed, on a port of its own, for integration tests.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import { readTestbedEnv } from '../testbed/env.js';
import { runLogDir, serviceLogFile } from './log-audit.js';
import { freePort } from './ports.js';
import { serviceOrigins } from './service-origins.js';
import { FILEPROXY_CLI } from './cli-path.js';
import { scratchDir } from './scratch-dir.js';
import { deleteIndicesStartingWith, testSearchClient } from './es-indices.js';


export interface RunningService {
  url: string;
  configFile: string;
  process: ChildProcess;
  /** Everything the service wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL after the timeout). */
  stop(timeoutMs?: number): Promise<number | null>;
}

export type Overrides = Record<string, Record<string, unknown>>;

/** Merge `overrides` into `base`: objects merge key by key, anything else replaces; undefined deletes. */
function deepMerge(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const old = merged[key];
    if (value === undefined) delete merged[key];
    else if (isPlainObject(value) && isPlainObject(old)) merged[key] = deepMerge(old, value);
    else merged[key] = value;
  }
  return merged;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Set by test/run-tests.ts for its test processes: the run's part of every test file's index prefix. */
export const TEST_RUN_VARIABLE = 'FILEPROXY_TEST_RUN';
/** What the index prefixes of a run's test files start with; the runner deletes the run's indices by it. */
export const TEST_INDEX_PREFIX = 'fileproxy-test-';
const distTest = fileURLToPath(new URL('..', import.meta.url));

/**
 * The search index (elasticsearch.index_prefix) of the services a test file starts: its own, named after the file
 * and the run, so that files running side by side neither see nor reindex each other's documents. A file run
 * outside the runner names its indices after its process. Benchmarks and the soak keep the testbed's index.
 * It ends in `_`, which the file's part never holds, so that no file's prefix starts another's (integration/doctor
 * and integration/doctor-proxies): the file's indices are the ones starting with it, and are deleted when it ends.
 */
export const fileIndexPrefix: string | undefined = ((): string | undefined => {
  const file = relative(distTest, process.argv[1] ?? '');
  if (!file.endsWith('.test.js') || file.startsWith('..')) return undefined;
  const run = process.env[TEST_RUN_VARIABLE] || `pid${process.pid}`;
  return `${`${TEST_INDEX_PREFIX}${run}-${file.replace(/\.test\.js$/, '')}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}_`;
})();

let indicesDeletedAtExit = false;

/**
 * Deletes the file's indices (fileIndexPrefix) when its process has run its tests, instead of leaving them to the end
 * of the run: a hundred idle shards kept a node busy for 3 s a minute and made each restart of the testbed's node
 * (the serial tier stops it three times) take 17 s instead of 13 (measured on the AMD host). The runner still deletes
 * whatever a file left, when the process did not end normally.
 */
function deleteFileIndicesAtExit(esUrl: string): void {
  if (fileIndexPrefix === undefined || indicesDeletedAtExit) return;
  indicesDeletedAtExit = true;
  const prefix = fileIndexPrefix;
  // beforeExit comes when the tests are done and nothing is left to run; the deletion's requests run the loop again.
  process.once('beforeExit', () => {
    const es = testSearchClient(esUrl);
    void deleteIndicesStartingWith(es, prefix)
      .catch((error: unknown) => process.stderr.write(`the indices ${prefix}* were left to the runner: ${String(error)}\n`))
      .finally(() => es.close());
  });
}

/** The alias the services this process starts index into: its test file's own, else the testbed's. */
export const serviceIndex = fileIndexPrefix ?? DEFAULT_ALIAS;

/**
 * The testbed's config with a fresh port and data dir and this test file's index (fileIndexPrefix), plus overrides
 * merged in (see deepMerge).
 */
export async function writeServiceConfig(overrides: Overrides = {}): Promise<{ file: string; port: number }> {
  const env = await readTestbedEnv();
  const port = await freePort();
  const dir = scratchDir('fileproxy-test-');
  const testbed = parse(readFileSync(env.config, 'utf8')) as Record<string, unknown>;
  const ownIndex = fileIndexPrefix === undefined ? {} : { elasticsearch: { index_prefix: fileIndexPrefix } };
  const config = deepMerge(deepMerge(deepMerge(testbed, ownIndex), { http: { port }, storage: { data_dir: dir } }), overrides);
  deleteFileIndicesAtExit(env.es.url);
  const file = join(dir, 'config.yml');
  writeFileSync(file, stringify(config));
  return { file, port };
}

/**
 * Node options for the services that tests and benchmarks start, from SERVICE_NODE_ARGS: a profile of every thread
 * is `SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` (NODE_OPTIONS does not take --cpu-prof).
 */
const SERVICE_NODE_ARGS = (process.env['SERVICE_NODE_ARGS'] ?? '').split(' ').filter(Boolean);

/**
 * The compile cache of the services a run's test files start: one for the run, in the runner's log directory (gone
 * with it), instead of one in each service's new data directory, which every start filled from nothing. A start
 * then costs the service 2.2 s of CPU instead of 2.7 (eight starts each way, twice, on the 2-core AMD host), and a
 * run starts over a hundred. Outside the runner a service keeps its own; one set for the test process wins.
 */
function runCompileCache(): Record<string, string> {
  const logDir = runLogDir();
  return logDir === undefined || process.env['NODE_COMPILE_CACHE'] !== undefined ? {} : { NODE_COMPILE_CACHE: join(logDir, 'compile-cache') };
}

/**
 * `env`: variables set for the service on top of this process's environment; `cli`: the command line of another
 * build (a benchmark comparing builds in one run), this build's by default.
 */
export async function startService(overrides: Overrides = {}, env: Record<string, string> = {}, cli = FILEPROXY_CLI): Promise<RunningService> {
  const { file, port } = await writeServiceConfig(overrides);
  return runService([process.execPath, ...SERVICE_NODE_ARGS, cli, 'serve', '--config', file], {
    configFile: file, port, env: { ...process.env, ...runCompileCache(), ...env },
  });
}

/**
 * Runs `command` (a service listening on loopback at `port`), collects its output for the log audit and waits
 * for /healthz to answer 200.
 */
export async function runService(
  [executable, ...args]: readonly string[],
  { configFile: file, port, env }: { configFile: string; port: number; env?: NodeJS.ProcessEnv },
): Promise<RunningService> {
  const child = spawn(executable!, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
  let output = '';
  // Kept for the run's log audit (test/support/log-audit.ts), when the run has a log directory.
  const logDir = runLogDir();
  // Appended to: a test may start a service again on the same port.
  const logFile = logDir === undefined ? undefined : createWriteStream(serviceLogFile(logDir, port), { flags: 'a' });
  const collect = (d: Buffer) => {
    output += d.toString();
    logFile?.write(d);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  serviceOrigins.add(url);
  child.once('close', () => logFile?.end());
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    serviceOrigins.delete(url);
    resolve(code);
  }));
  const service: RunningService = {
    url,
    configFile: file,
    process: child,
    output: () => output,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  await waitFor(async () => (await fetch(`${url}/healthz`)).status === 200, 30_000, () => {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
  });
  return service;
}

/**
 * Asserts that the service's log comes to match `pattern`: its logger writes on a thread of its own, so a line about
 * a request can arrive a moment after the answer (seen in CI-style runs).
 */
export async function assertLogged(service: RunningService, pattern: RegExp, timeoutMs = 5_000): Promise<void> {
  await waitFor(async () => pattern.test(service.output()), timeoutMs).catch(() => undefined);
  assert.match(service.output(), pattern);
}

/**
 * How long a check may still run after the wait's deadline before the wait gives up on it: a check that never
 * answers (a request the service never answers) then fails the wait, naming it, instead of holding the test until
 * the runner's test timeout (10 min) and leaving its service running under the next tests.
 */
const CHECK_OVERRUN_MS = 30_000;

/**
 * Waits until `done` holds or `timeoutMs` ran out, whichever comes first, and never fails: for a load test that
 * waits for enough of its load and then asserts on what it had.
 */
export async function waitUpTo(done: () => boolean, timeoutMs: number): Promise<void> {
  await waitFor(async () => done(), timeoutMs).catch(() => undefined);
}

/** Poll `check` until it returns true; `guard` may throw to stop early. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, guard: () => void = () => {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    guard();
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => { timer = setTimeout(() => resolve('hung'), Math.max(0, deadline - started) + CHECK_OVERRUN_MS); });
    let outcome: boolean | 'hung' = false;
    try {
      outcome = await Promise.race([check(), hung]);
    } catch {
      // not up yet
    } finally {
      clearTimeout(timer);
    }
    if (outcome === true) return;
    if (outcome === 'hung') throw new Error(`condition not met within ${timeoutMs} ms: its check had not answered ${Date.now() - started} ms after it began`);
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
