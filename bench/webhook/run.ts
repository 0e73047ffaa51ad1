/**
 * Webhook intake benchmark on the testbed: the real service (accepted events, 401 rejections,
 * 409 duplicates; and accepted events with two http-fronts sharing the port) next to a bare uWebSockets.js and
 * a bare node:http hello-world and the service's HTTP layer alone, all driven by the same wrk script. The uWS
 * processes run on a Node for which a uWS build loads (on Debian 12 the system's Node 20, see test/support/transports.ts).
 *   node dist/bench/webhook/run.js
 * Needs wrk on PATH and the testbed up (the service authenticates the admin over LDAPS to
 * register the bench client). Prints a table and writes it under "## Webhook intake" in
 * bench/RESULTS.md. Takes about 2 minutes.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startService } from '../../test/support/service.js';
import { nodeForUws } from '../../test/support/transports.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { AdminApi } from '../../test/integration/webhooks/api.js';
import { startBare, type BareServer } from '../bare-server.js';
import { loadAverage, ratioRow, runAlone, runLine, verdict, report, type BenchReport, type Benchmark } from '../results.js';

const DURATION_S = 4;
const ROUNDS = 3;
const WRK_ARGS = ['-t1', '-c50', `-d${DURATION_S}s`, '--latency'];
const WARMUP_ARGS = ['-t1', '-c50', '-d2s'];
const LUA = fileURLToPath(new URL('../../../bench/webhook/webhook.lua', import.meta.url));
const HEADING = '## Webhook intake';
const AGENT = 'service-eventhandler/1.0';
const CLOCK_TICKS_PER_S = 100; // USER_HZ of /proc/<pid>/stat on Linux

interface Target {
  name: string;
  /** What the responses must be, checked against wrk's non-2xx count. */
  expected: 'all 200' | 'all 401' | 'all 409';
  url: string;
  luaArgs: string[];
  /** The server process, whose CPU time per request is measured. */
  pid: number;
}

interface Measurement {
  requests: number;
  non2xx: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** CPU time (user + system, all threads) the server process spent per request, in µs. */
  cpuUsPerRequest: number;
}

/** wrk's output; run asynchronously, so that the driver's progress timer keeps ticking. */
async function wrk(args: string[], target: Target): Promise<string> {
  return (await promisify(execFile)('wrk', [...args, '-s', LUA, target.url, '--', ...target.luaArgs], { encoding: 'utf8' })).stdout;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!match) throw new Error(`unexpected wrk latency ${value}`);
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

async function measure(target: Target): Promise<Measurement> {
  const cpuBefore = cpuSeconds(target.pid);
  const output = await wrk(WRK_ARGS, target);
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  const field = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`wrk output for ${target.name} lacks ${re}:\n${output}`);
    return m[1]!;
  };
  const requests = Number(field(/(\d+) requests in/));
  return {
    requests,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    rps: Number(field(/Requests\/sec:\s+([\d.]+)/)),
    p50ms: toMs(field(/\s50%\s+(\S+)/)),
    p99ms: toMs(field(/\s99%\s+(\S+)/)),
    cpuUsPerRequest: (cpu * 1e6) / requests,
  };
}

/** A peer server's script beside this one. */
const bareScript = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

/** Whether wrk's non-2xx count fits what the run was meant to produce. */
function plausible(target: Target, m: Measurement): boolean {
  if (target.expected === 'all 200') return m.non2xx === 0;
  if (target.expected === 'all 401') return m.non2xx === m.requests;
  return m.non2xx >= m.requests - 1; // all 409 but possibly the first
}

/** The round with the median req/s. */
function median(rounds: Measurement[]): Measurement {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

function table(targets: Target[], results: Measurement[][], uws: Measurement, node: Measurement): string {
  const lines = [
    '| target | expected responses | req/s (median of rounds) | rounds req/s | p50 ms | p99 ms | server CPU µs/request | × bare uWS | × bare node:http | checked |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---|',
  ];
  targets.forEach((target, i) => {
    const rounds = results[i]!;
    const m = median(rounds);
    const bad = rounds.filter((r) => !plausible(target, r));
    const checked = bad.length === 0 ? 'ok' : `NO: ${bad.map((r) => `${r.non2xx} of ${r.requests} non-2xx`).join('; ')}`;
    lines.push(`| ${target.name} | ${target.expected} | ${m.rps.toFixed(0)} | ${rounds.map((r) => r.rps.toFixed(0)).join(', ')} | ${m.p50ms.toFixed(2)} | ${m.p99ms.toFixed(2)} | ${m.cpuUsPerRequest.toFixed(1)} | ${(m.rps / uws.rps).toFixed(2)} | ${(m.rps / node.rps).toFixed(2)} | ${checked} |`);
  });
  return lines.join('\n');
}

async function run(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const uwsNode = nodeForUws();
  const uwsOn = uwsNode === process.execPath ? '' : ` (on ${execFileSync(uwsNode, ['--version'], { encoding: 'utf8' }).trim()})`;
  const bare = {
    uws: await startBare(bareScript('bare-uws'), { node: uwsNode }),
    node: await startBare(bareScript('bare-node')),
    frontNode: await startBare(bareScript('bare-http-front'), { args: ['node'] }),
    frontUws: await startBare(bareScript('bare-http-front'), { node: uwsNode, args: ['uws'] }),
  };
  // The wiki is off so that its drift reconciler does not compete for the cores during the runs.
  const service = await startService({ elasticsearch: { enabled: false } });
  const twoFronts = await startService({ elasticsearch: { enabled: false }, workers: { http_front: 2 } });
  // The same without the per-request log line: what that line costs is the difference.
  const quiet = await startService({ elasticsearch: { enabled: false }, log: { level: 'warn' } });
  const load = loadAverage();
  const results: Measurement[][] = [];
  let targets: Target[] = [];
  try {
    const key = (await AdminApi.asAdmin(service.url, env).register('service-eventhandler')).api_key;
    const keyOfTwo = (await AdminApi.asAdmin(twoFronts.url, env).register('service-eventhandler')).api_key;
    const keyOfQuiet = (await AdminApi.asAdmin(quiet.url, env).register('service-eventhandler')).api_key;
    const pid = service.process.pid!;
    const helloWorld = (name: string, server: BareServer): Target =>
      ({ name, expected: 'all 200', url: server.url, luaArgs: ['fresh', 'unused', AGENT], pid: server.child.pid! });
    targets = [
      { name: 'service: accepted (cached for a user)', expected: 'all 200', url: service.url, luaArgs: ['fresh', key, AGENT], pid },
      { name: 'service: 401 unknown key', expected: 'all 401', url: service.url, luaArgs: ['fresh', 'not-a-registered-key', AGENT], pid },
      { name: 'service: 409 duplicate id', expected: 'all 409', url: service.url, luaArgs: ['same', key, AGENT], pid },
      { name: 'service, 2 http-fronts on one port: accepted', expected: 'all 200', url: twoFronts.url, luaArgs: ['fresh', keyOfTwo, AGENT], pid: twoFronts.process.pid! },
      { name: 'service without the request log line (log.level: warn): accepted', expected: 'all 200', url: quiet.url, luaArgs: ['fresh', keyOfQuiet, AGENT], pid: quiet.process.pid! },
      helloWorld(`bare uWebSockets.js hello-world${uwsOn}`, bare.uws),
      helloWorld('bare node:http hello-world', bare.node),
      helloWorld('HTTP layer alone on node:http (no webhook logic)', bare.frontNode),
      helloWorld(`HTTP layer alone on uWS (no webhook logic)${uwsOn}`, bare.frontUws),
    ];
    for (const target of targets) await wrk(WARMUP_ARGS, target);
    // Rounds interleave the targets, so that load from elsewhere on the machine hits all of them alike.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const m = await measure(target);
        (results[i] ??= []).push(m);
        console.log(`round ${round} ${target.name}: ${m.rps.toFixed(0)} req/s, ${m.cpuUsPerRequest.toFixed(1)} µs CPU/request`);
      }
    }
  } finally {
    await Promise.all([service.stop(), twoFronts.stop(), quiet.stop()]);
    for (const server of Object.values(bare)) server.child.kill('SIGTERM');
  }

  const [accepted, , , acceptedTwo, acceptedQuiet, uws, node, frontNode] = results.map(median);
  // Issue 17's targets, all on node:http (the transport that ships): the HTTP layer's CPU next to bare node:http's, the
  // intake's CPU above the HTTP layer, the throughput next to bare node:http's, and what a second front adds.
  const layerRatio = frontNode.cpuUsPerRequest / node.cpuUsPerRequest;
  const intakeUs = accepted.cpuUsPerRequest - frontNode.cpuUsPerRequest;
  const verdicts = [
    `HTTP layer alone: ${frontNode.cpuUsPerRequest.toFixed(1)} µs CPU per request = ${layerRatio.toFixed(2)} × bare node:http's ${node.cpuUsPerRequest.toFixed(1)} µs (target ≤ 1.3 ×): ${verdict(layerRatio <= 1.3)}.`,
    `Intake above the HTTP layer: ${intakeUs.toFixed(1)} µs CPU per accepted event (target ≤ 12 µs): ${verdict(intakeUs <= 12)}; of it the request log line ${(accepted.cpuUsPerRequest - acceptedQuiet.cpuUsPerRequest).toFixed(1)} µs (the service with and without it).`,
    `Accepted events, default service: ${(accepted.rps / node.rps).toFixed(2)} × bare node:http's req/s (target ≥ 0.45 ×): ${verdict(accepted.rps >= 0.45 * node.rps)}.`,
    `2 http-fronts: ${(acceptedTwo.rps / accepted.rps).toFixed(2)} × one front's req/s (target ≥ 1.5 ×): ${verdict(acceptedTwo.rps >= 1.5 * accepted.rps)}; wrk runs on the same 2 cores.`,
  ];
  const command = `wrk ${WRK_ARGS.join(' ')} -s bench/webhook/webhook.lua <url> -- <fresh|same> <key> ${AGENT}`;
  const split = (label: string, m: Measurement, layer: Measurement) =>
    `${label}: ${m.cpuUsPerRequest.toFixed(1)} µs per accepted event = HTTP layer ${layer.cpuUsPerRequest.toFixed(1)} µs (bare uWS ${uws.cpuUsPerRequest.toFixed(1)}, bare node:http ${node.cpuUsPerRequest.toFixed(1)}) + intake ${(m.cpuUsPerRequest - layer.cpuUsPerRequest).toFixed(1)} µs (key check, JSON, dedupe ring, webhook-store).`;
  const lines = [
    `${runLine(SCRIPT, load)} wrk on the same machine.`,
    `Services on Node ${process.version}: the testbed config with \`elasticsearch.enabled: false\` (no wiki reconciler running alongside), with one http-front and with two`,
    `sharing the port (node:http, reusePort). The uWebSockets.js processes run on ${uwsOn === '' ? 'the same Node' : `the system's Node${uwsOn}, as no uWS build loads for ${process.version} here`}.`,
    'Each accepted event is a `service-eventhandler` event with a username, admitted in the dedupe actor\'s shared ring and cached in the webhook-store.',
    '"HTTP layer alone" is the http-front\'s HttpServer and Router with one route that reads the body and answers `{"status":"ok"}` (bench/webhook/bare-http-front.ts).',
    '',
    `Command per target and round: \`${command}\` (${ROUNDS} rounds interleaving the targets after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; the table shows the median round).`,
    'Server CPU is user + system time of the whole server process (all threads) per request, from /proc; it depends less on other load than req/s does.',
    '',
    table(targets, results, uws, node),
    '',
    ...verdicts,
    '',
    'Where the CPU goes (server process, all threads):',
    `- ${split('default service', accepted, frontNode)}`,
    `- ${split('2 http-fronts', acceptedTwo, frontNode)}`,
    '',
    'Optimisations in place: an accepted event is checked and inserted in the dedupe ring by the front itself (memory the dedupe actor owns, shared with',
    'every front, Atomics under one lock word: no message per event); cached events go to the webhook-store in one call per event-loop turn;',
    'the fixed 401/409 errors are built once (no stack trace per request); the success body is serialised once; user events are appended without copying',
    'and keep the body\'s text as sent (never serialised again); the body is collected from the request stream\'s events (not its async iterator);',
    'the request log line skips pino\'s redaction pass (its fields are fixed primitives); the router splits a path once and allocates only for the route that matches.',
    '',
  ];
  return report(HEADING, lines, [
    ratioRow('accepted events req/s, default service (node:http)', accepted.rps, node.rps, 'bare node:http', { atLeast: 0.45 }),
    ratioRow('accepted events req/s, 2 http-fronts', acceptedTwo.rps, accepted.rps, 'one http-front', { atLeast: 1.5 }),
    ratioRow('CPU µs per request, HTTP layer alone', frontNode.cpuUsPerRequest, node.cpuUsPerRequest, 'bare node:http', { atMost: 1.3 }, 1),
    ratioRow('CPU µs per accepted event, service', accepted.cpuUsPerRequest, frontNode.cpuUsPerRequest + 12, 'HTTP layer + 12 µs', { atMost: 1 }, 1),
  ]);
}

const SCRIPT = 'dist/bench/webhook/run.js';
export const webhookBench: Benchmark = { name: 'webhook', script: SCRIPT, run };

await runAlone(import.meta.url, webhookBench);
