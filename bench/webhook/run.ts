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
import { loadAverage, ratioRow, runAlone, runLine, report, Unexpected, verdictLine, type BenchReport, type Benchmark } from '../results.js';

const DURATION_S = 4;
const ROUNDS = 3;
const WRK_ARGS = ['-t1', '-c50', `-d${DURATION_S}s`, '--latency'];
const WARMUP_ARGS = ['-t1', '-c50', '-d2s'];
const LUA = fileURLToPath(new URL('../../../bench/webhook/webhook.lua', import.meta.url));
/** webhook.lua with every answer's status counted: for the targets that are to answer other than 2xx. */
const LUA_STATUSES = fileURLToPath(new URL('../../../bench/webhook/statuses.lua', import.meta.url));
const HEADING = '## Webhook intake';
const AGENT = 'service-eventhandler/1.0';
const CLOCK_TICKS_PER_S = 100; // USER_HZ of /proc/<pid>/stat on Linux

interface Target {
  name: string;
  /**
   * The answer every request is to get; any other is unexpected. A 409 target's first request may be accepted
   * (200): the dedupe ring has forgotten its id once other targets' events pushed it out.
   */
  expect: 200 | 401 | 409;
  url: string;
  luaArgs: string[];
  /** The server process, whose CPU time per request is measured. */
  pid: number;
}

interface Measurement {
  requests: number;
  unexpected: Unexpected;
  /** Answers as expected per second: an error is no throughput. */
  rps: number;
  p50ms: number;
  p99ms: number;
  /** CPU time (user + system, all threads) the server process spent per request, in µs. */
  cpuUsPerRequest: number;
}

/** wrk's output; run asynchronously, so that the driver's progress timer keeps ticking. */
async function wrk(args: string[], target: Target): Promise<string> {
  const script = target.expect === 200 ? LUA : LUA_STATUSES;
  return (await promisify(execFile)('wrk', [...args, '-s', script, target.url, '--', ...target.luaArgs], { encoding: 'utf8' })).stdout;
}

/**
 * The answers of one wrk run that were not the target's: for a 200 target wrk's count of answers ≥ 400 (the
 * service answers no 3xx), for the others every status but the expected one (statuses.lua); broken requests
 * (wrk's socket errors) for all.
 */
function unexpectedAnswers(target: Target, output: string, requests: number): Unexpected {
  const unexpected = new Unexpected();
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  unexpected.add(target.name, 'socket error', socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0);
  if (target.expect === 200) return unexpected.add(target.name, 'status ≥ 400', Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0));
  const line = /^WRK_STATUSES (.*)$/m.exec(output);
  if (!line) throw new Error(`wrk output for ${target.name} lacks WRK_STATUSES:\n${output}`);
  const statuses = JSON.parse(line[1]!) as Record<string, number>;
  // The answers wrk read but statuses.lua did not see (none expected) are unexpected too.
  const counted = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  unexpected.add(target.name, 'uncounted', requests - counted);
  for (const [status, n] of Object.entries(statuses)) {
    if (Number(status) === target.expect) continue;
    unexpected.add(target.name, status, target.expect === 409 && status === '200' ? n - 1 : n);
  }
  return unexpected;
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
  const unexpected = unexpectedAnswers(target, output, requests);
  return {
    requests,
    unexpected,
    rps: (Number(field(/Requests\/sec:\s+([\d.]+)/)) * Math.max(0, requests - unexpected.total)) / requests,
    p50ms: toMs(field(/\s50%\s+(\S+)/)),
    p99ms: toMs(field(/\s99%\s+(\S+)/)),
    cpuUsPerRequest: (cpu * 1e6) / requests,
  };
}

/** A peer server's script beside this one. */
const bareScript = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

/** The round with the median req/s. */
function median(rounds: Measurement[]): Measurement {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

/** The unexpected answers of all rounds of a target (the warm-up left out). */
const unexpectedIn = (rounds: Measurement[]): Unexpected => rounds.reduce((all, m) => all.with(m.unexpected), new Unexpected());

function table(targets: Target[], results: Measurement[][], uws: Measurement, node: Measurement): string {
  const lines = [
    '| target | expected answer | req/s answered as expected (median of rounds) | rounds req/s | p50 ms | p99 ms | server CPU µs/request | × bare uWS | × bare node:http | unexpected answers (all rounds) |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---|',
  ];
  targets.forEach((target, i) => {
    const rounds = results[i]!;
    const m = median(rounds);
    const unexpected = unexpectedIn(rounds);
    lines.push(`| ${target.name} | ${target.expect} | ${m.rps.toFixed(0)} | ${rounds.map((r) => r.rps.toFixed(0)).join(', ')} | ${m.p50ms.toFixed(2)} | ${m.p99ms.toFixed(2)} | ${m.cpuUsPerRequest.toFixed(1)} | ${(m.rps / uws.rps).toFixed(2)} | ${(m.rps / node.rps).toFixed(2)} | ${unexpected.total === 0 ? 0 : `${unexpected.total} (${unexpected})`} |`);
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
      ({ name, expect: 200, url: server.url, luaArgs: ['fresh', 'unused', AGENT], pid: server.child.pid! });
    targets = [
      { name: 'service: accepted (cached for a user)', expect: 200, url: service.url, luaArgs: ['fresh', key, AGENT], pid },
      { name: 'service: 401 unknown key', expect: 401, url: service.url, luaArgs: ['fresh', 'not-a-registered-key', AGENT], pid },
      { name: 'service: 409 duplicate id', expect: 409, url: service.url, luaArgs: ['same', key, AGENT], pid },
      { name: 'service, 2 http-fronts on one port: accepted', expect: 200, url: twoFronts.url, luaArgs: ['fresh', keyOfTwo, AGENT], pid: twoFronts.process.pid! },
      { name: 'service without the request log line (log.level: warn): accepted', expect: 200, url: quiet.url, luaArgs: ['fresh', keyOfQuiet, AGENT], pid: quiet.process.pid! },
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
  // Each figure stands for every round of the two targets it compares.
  const [ofAccepted, , , ofTwo, , , ofNode, ofFrontNode] = results.map(unexpectedIn);
  const rows = [
    ratioRow('accepted events req/s, default service (node:http)', accepted.rps, node.rps, 'bare node:http', { atLeast: 0.45 }, 0, ofAccepted.with(ofNode)),
    ratioRow('accepted events req/s, 2 http-fronts', acceptedTwo.rps, accepted.rps, 'one http-front', { atLeast: 1.5 }, 0, ofTwo.with(ofAccepted)),
    ratioRow('CPU µs per request, HTTP layer alone', frontNode.cpuUsPerRequest, node.cpuUsPerRequest, 'bare node:http', { atMost: 1.3 }, 1, ofFrontNode.with(ofNode)),
    // The intake's target: at most 12 µs of CPU per accepted event above the HTTP layer's.
    ratioRow('CPU µs per accepted event, service', accepted.cpuUsPerRequest, frontNode.cpuUsPerRequest + 12, 'HTTP layer + 12 µs', { atMost: 1 }, 1, ofAccepted.with(ofFrontNode)),
  ];
  const command = `wrk ${WRK_ARGS.join(' ')} -s bench/webhook/webhook.lua <url> -- <fresh|same> <key> ${AGENT}` + ' (bench/webhook/statuses.lua for the 401 and 409 targets: it counts each answer\'s status)';
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
    ...rows.map(verdictLine),
    `Of the intake's CPU the request log line takes ${(accepted.cpuUsPerRequest - acceptedQuiet.cpuUsPerRequest).toFixed(1)} µs (the service with and without it); wrk runs on the same 2 cores.`,
    'A figure is met only when its ratio is and neither of the two targets it compares had an unexpected answer in any round (an error is no throughput either).',
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
  return report(HEADING, lines, rows);
}

const SCRIPT = 'dist/bench/webhook/run.js';
export const webhookBench: Benchmark = { name: 'webhook', script: SCRIPT, run };

await runAlone(import.meta.url, webhookBench);
