/**
 * Where the CPU time of one request goes, by function group, over every thread of the service:
 *   node dist/bench/request-profile.js webhook|search|forwarder [seconds]
 * Starts the service with --cpu-prof (all threads), drives one request kind with wrk (`webhook`: accepted
 * `service-eventhandler` events, 50 connections, as bench/webhook; `search`: POST /wiki/search for "Pythagoras" as
 * anna with her groups on the testbed's index, 8 connections; `forwarder`: instead of the service, the search bench's
 * bare forwarder asked the body the service sends Elasticsearch for that search, the hop alone to hold beside
 * `search`), and counts only the samples taken while the measured
 * wrk run lasted (the profiles' clock is the monotonic clock of process.hrtime), so start-up and warm-up stay out.
 * Prints µs per request and share by group (bench/profile-summary.ts's groups) and the top functions.
 * Needs wrk and the testbed up.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ALIAS } from '../src/search/mapping.js';
import { readTestbedEnv } from '../test/testbed/env.js';
import { startBare } from './bare-server.js';
import { cpuTotals, type CpuProfile } from './profile-summary.js';

const [kind = 'webhook', seconds = '10'] = process.argv.slice(2);
if (kind !== 'webhook' && kind !== 'search' && kind !== 'forwarder') {
  console.error('usage: node dist/bench/request-profile.js webhook|search|forwarder [seconds]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'request-profile-'));
// test/support/service.ts reads it when it loads: set before importing it, or anything that imports it.
process.env['SERVICE_NODE_ARGS'] = `--cpu-prof --cpu-prof-dir=${dir}`;
const { startService } = await import('../test/support/service.js');
const { AdminApi } = await import('../test/integration/webhooks/api.js');
const { callerHeaders, callerSearchBody } = await import('./search/caller.js');
const lua = (name: string) => fileURLToPath(new URL(`../../bench/${name}/${name}.lua`, import.meta.url));
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const QUERY = { q: 'Pythagoras' };

/** What is profiled: the service, or the bare forwarder. */
interface Profiled {
  url: string;
  /** Ends it; resolves once its profiles are written. */
  stop(): Promise<unknown>;
}

async function startForwarder(): Promise<Profiled> {
  const { child, url } = await startBare(fileURLToPath(new URL('./search/bare-forwarder.js', import.meta.url)), {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    args: [env.es.url],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { url, stop: () => (child.kill('SIGTERM'), exited) };
}

const env = await readTestbedEnv();
const profiled: Profiled = kind === 'forwarder' ? await startForwarder() : await startService(kind === 'webhook' ? { elasticsearch: { enabled: false } } : {});
let wrkArgs: string[];
if (kind === 'webhook') {
  const key = (await AdminApi.asAdmin(profiled.url, env).register('service-eventhandler')).api_key;
  wrkArgs = ['-t1', '-c50', '-s', lua('webhook'), profiled.url, '--', 'fresh', key, 'service-eventhandler/1.0'];
} else {
  const body = join(dir, 'search.json');
  const { authorization, groups } = callerHeaders(env);
  if (kind === 'search') {
    writeFileSync(body, JSON.stringify(QUERY));
    wrkArgs = ['-t1', '-c8', '-s', lua('search'), profiled.url, '--', '/wiki/search', body, authorization, groups];
  } else {
    writeFileSync(body, callerSearchBody(env, QUERY, 'schule'));
    wrkArgs = ['-t1', '-c8', '-s', lua('search'), profiled.url, '--', `/${DEFAULT_ALIAS}/_search`, body];
  }
}
let requests = 0;
let window = { from: 0, to: 0 };
try {
  execFileSync('wrk', ['-d3s', ...wrkArgs]);
  const from = monotonicUs();
  const output = execFileSync('wrk', [`-d${seconds}s`, ...wrkArgs], { encoding: 'utf8' });
  window = { from, to: monotonicUs() };
  requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  console.log(output.split('\n').filter((line) => /requests in|Requests\/sec|Non-2xx|Socket errors/.test(line)).join('\n'));
} finally {
  await profiled.stop();
}

const profiles = readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))
  .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile);
const { busy: total, groups, functions } = cpuTotals(profiles, window);
const perRequest = (us: number) => `${(us / requests).toFixed(2).padStart(8)} µs ${((100 * us) / total).toFixed(1).padStart(5)} %`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) => `  ${perRequest(us)}  ${name}`);
console.log(`${kind}: ${requests} requests; ${(total / requests).toFixed(1)} µs of sampled CPU per request, all threads (profiles in ${dir})`);
console.log(['by group:', ...top(groups, 20), 'top functions (self):', ...top(functions, 20)].join('\n'));
