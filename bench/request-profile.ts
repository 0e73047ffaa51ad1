/**
 * Where the CPU time of one request goes, by function group, over every thread of the service:
 *   node dist/bench/request-profile.js webhook|search [seconds]
 * Starts the service with --cpu-prof (all threads), drives one request kind with wrk (`webhook`: accepted
 * `service-eventhandler` events, 50 connections, as bench/webhook; `search`: POST /wiki/search for "Pythagoras" as
 * anna with her groups on the testbed's index, 8 connections), and counts only the samples taken while the measured
 * wrk run lasted (the profiles' clock is the monotonic clock of process.hrtime), so start-up and warm-up stay out.
 * Prints µs per request and share by group (bench/profile-summary.ts's groups) and the top functions.
 * Needs wrk and the testbed up.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTestbedEnv } from '../test/testbed/env.js';
import { cpuTotals, type CpuProfile } from './profile-summary.js';

const [kind = 'webhook', seconds = '10'] = process.argv.slice(2);
if (kind !== 'webhook' && kind !== 'search') {
  console.error('usage: node dist/bench/request-profile.js webhook|search [seconds]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'request-profile-'));
// test/support/service.ts reads it when it loads: set before importing it, or anything that imports it.
process.env['SERVICE_NODE_ARGS'] = `--cpu-prof --cpu-prof-dir=${dir}`;
const { startService } = await import('../test/support/service.js');
const { AdminApi } = await import('../test/integration/webhooks/api.js');
const { groupsHeader } = await import('../test/integration/wiki/wiki-service.js');
const lua = (name: string) => fileURLToPath(new URL(`../../bench/${name}/${name}.lua`, import.meta.url));
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const env = await readTestbedEnv();
const service = await startService(kind === 'webhook' ? { elasticsearch: { enabled: false } } : {});
let wrkArgs: string[];
if (kind === 'webhook') {
  const key = (await AdminApi.asAdmin(service.url, env).register('service-eventhandler')).api_key;
  wrkArgs = ['-t1', '-c50', '-s', lua('webhook'), service.url, '--', 'fresh', key, 'service-eventhandler/1.0'];
} else {
  const body = join(dir, 'search.json');
  writeFileSync(body, JSON.stringify({ q: 'Pythagoras' }));
  const authorization = `Basic ${Buffer.from(`anna:${env.users['anna']!.password}`).toString('base64')}`;
  wrkArgs = ['-t1', '-c8', '-s', lua('search'), service.url, '--', '/wiki/search', body, authorization, groupsHeader(['Lehrer', 'Lehrkräfte Mathe'])];
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
  await service.stop();
}

const profiles = readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))
  .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile);
const { busy: total, groups, functions } = cpuTotals(profiles, window);
const perRequest = (us: number) => `${(us / requests).toFixed(2).padStart(8)} µs ${((100 * us) / total).toFixed(1).padStart(5)} %`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) => `  ${perRequest(us)}  ${name}`);
console.log(`${kind}: ${requests} requests; ${(total / requests).toFixed(1)} µs of sampled CPU per request, all threads (profiles in ${dir})`);
console.log(['by group:', ...top(groups, 20), 'top functions (self):', ...top(functions, 20)].join('\n'));
