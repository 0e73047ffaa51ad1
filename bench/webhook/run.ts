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
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startService } from '../../test/support/service.js';
import { nodeForUws } from '../../test/support/transports.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { AdminApi } from '../../test/integration/webhooks/api.js';
import { startBare, type BareServer } from '../bare-server.js';
import { loadAverage, ratioRow, runAlone, runLine, report, verdictLine, type BenchReport, type Benchmark } from '../results.js';
import { AGENT, measureRounds, median, ROUNDS, unexpectedIn, WARMUP_ARGS, WRK_ARGS, type Measurement, type Target } from './wrk-rounds.js';

const HEADING = '## Webhook intake';

/** A peer server's script beside this one. */
const bareScript = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

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
    const pids = [service.process.pid!];
    const helloWorld = (name: string, server: BareServer): Target =>
      ({ name, expect: 200, url: server.url, luaArgs: ['fresh', 'unused', AGENT], pids: [server.child.pid!] });
    targets = [
      { name: 'service: accepted (cached for a user)', expect: 200, url: service.url, luaArgs: ['fresh', key, AGENT], pids },
      { name: 'service: 401 unknown key', expect: 401, url: service.url, luaArgs: ['fresh', 'not-a-registered-key', AGENT], pids },
      { name: 'service: 409 duplicate id', expect: 409, url: service.url, luaArgs: ['same', key, AGENT], pids },
      { name: 'service, 2 http-fronts on one port: accepted', expect: 200, url: twoFronts.url, luaArgs: ['fresh', keyOfTwo, AGENT], pids: [twoFronts.process.pid!] },
      { name: 'service without the request log line (log.level: warn): accepted', expect: 200, url: quiet.url, luaArgs: ['fresh', keyOfQuiet, AGENT], pids: [quiet.process.pid!] },
      helloWorld(`bare uWebSockets.js hello-world${uwsOn}`, bare.uws),
      helloWorld('bare node:http hello-world', bare.node),
      helloWorld('HTTP layer alone on node:http (no webhook logic)', bare.frontNode),
      helloWorld(`HTTP layer alone on uWS (no webhook logic)${uwsOn}`, bare.frontUws),
    ];
    results.push(...(await measureRounds(targets)));
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
