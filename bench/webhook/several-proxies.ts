/**
 * Webhook intake with the proxies' state shared (cluster.shared_state: elasticsearch; issue 43): accepted events per
 * second of one proxy alone as today (shared_state: none), the same behind haproxy (what the balancer costs), one
 * proxy sharing its state in the testbed's Elasticsearch, and three proxies sharing it behind haproxy (round robin),
 * all measured in the same run with the wrk script of bench/webhook/run.ts. Every service has the same config but
 * for shared_state, on an index prefix of this run's own (deleted after).
 *   node dist/bench/webhook/several-proxies.js
 * Needs wrk, haproxy (installed on first use) and the testbed up. Writes "## Webhook intake, several proxies" in
 * bench/RESULTS.md. Takes about 1.5 minutes.
 */
import { randomUUID } from 'node:crypto';
import { createSearchClient } from '../../src/search/client.js';
import { AdminApi } from '../../test/integration/webhooks/api.js';
import { deleteIndicesStartingWith } from '../../test/support/es-indices.js';
import { startHaproxy, type RunningBalancer } from '../../test/support/haproxy.js';
import { startService, waitFor, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { layout } from '../../test/testbed/layout.js';
import { recordedProcess } from '../../test/testbed/processes.js';
import { loadAverage, ratioRow, runAlone, runLine, report, verdictLine, type BenchReport, type Benchmark } from '../results.js';
import { AGENT, measureRounds, median, ROUNDS, unexpectedIn, WARMUP_ARGS, WRK_ARGS, type Measurement, type Target } from './wrk-rounds.js';

const HEADING = '## Webhook intake, several proxies';
const PROXIES = 3;

function table(targets: Target[], results: Measurement[][], alone: Measurement): string {
  const lines = [
    '| target | req/s accepted (median of rounds) | rounds req/s | p50 ms | p99 ms | CPU µs/event (processes in the note) | × 1 proxy alone | unexpected answers (all rounds) |',
    '|---|---:|---|---:|---:|---:|---:|---|',
  ];
  targets.forEach((target, i) => {
    const rounds = results[i]!;
    const m = median(rounds);
    const unexpected = unexpectedIn(rounds);
    lines.push(`| ${target.name} | ${m.rps.toFixed(0)} | ${rounds.map((r) => r.rps.toFixed(0)).join(', ')} | ${m.p50ms.toFixed(2)} | ${m.p99ms.toFixed(2)} | ${m.cpuUsPerRequest.toFixed(1)} | ${(m.rps / alone.rps).toFixed(2)} | ${unexpected.total === 0 ? 0 : `${unexpected.total} (${unexpected})`} |`);
  });
  return lines.join('\n');
}

async function run(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  // The node's pid as the testbed recorded it (from a worktree, whose .testbed is a link, its path differs from the node's own).
  const esPid = await recordedProcess(layout.elasticsearch.pidFile, (info) => info.cmdline.includes('-Des.path.home='));
  if (esPid === undefined) throw new Error('the testbed\'s Elasticsearch is not running; start it with `npm run testbed -- up`');
  const prefix = `bench-proxies-${randomUUID().slice(0, 8)}`;
  // The reconciler stays quiet (no watch, no pass but the first), so that it does not compete for the cores.
  const common = { reconciler: { watch: false, interval: '24h' } };
  const shared = { ...common, cluster: { shared_state: 'elasticsearch', index_prefix: prefix } };
  const services: RunningService[] = [];
  const balancers: RunningBalancer[] = [];
  const start = async (overrides: Record<string, Record<string, unknown>>) => {
    const service = await startService(overrides);
    services.push(service);
    return service;
  };
  const balance = async (behind: RunningService[]) => {
    const balancer = await startHaproxy(behind.map((s) => s.url));
    balancers.push(balancer);
    return balancer;
  };
  const es = createSearchClient({ nodes: [env.es.url] });
  const load = loadAverage();
  let targets: Target[] = [];
  let results: Measurement[][] = [];
  try {
    const alone = await start(common);
    const aloneBalanced = await balance([alone]);
    const sharing = await start(shared);
    const three = [sharing];
    for (let i = 1; i < PROXIES; i++) three.push(await start(shared));
    const threeBalanced = await balance(three);
    const keyOfAlone = (await AdminApi.asAdmin(alone.url, env).register('service-eventhandler')).api_key;
    const keyShared = (await AdminApi.asAdmin(sharing.url, env).register('service-eventhandler')).api_key;
    // Every proxy knows the shared client (within a second) before the rounds start.
    await waitFor(async () => (await Promise.all(three.map((s) => AdminApi.asAdmin(s.url, env).list()))).every((l) => l.body.clients.length === 1), 5_000);
    const pidsOf = (list: RunningService[]) => list.map((s) => s.process.pid!);
    const accepted = (name: string, url: string, key: string, pids: number[]): Target => ({ name, expect: 200, url, luaArgs: ['fresh', key, AGENT], pids });
    targets = [
      accepted('1 proxy alone (shared_state: none, as today)', alone.url, keyOfAlone, pidsOf([alone])),
      accepted('1 proxy alone behind haproxy', aloneBalanced.url, keyOfAlone, [...pidsOf([alone]), aloneBalanced.pid]),
      accepted('1 proxy sharing state in Elasticsearch', sharing.url, keyShared, [...pidsOf([sharing]), esPid]),
      accepted(`${PROXIES} proxies sharing state behind haproxy`, threeBalanced.url, keyShared, [...pidsOf(three), threeBalanced.pid, esPid]),
    ];
    results = await measureRounds(targets);
  } finally {
    await Promise.all(balancers.map((b) => b.stop()));
    await Promise.all(services.map((s) => s.stop()));
    await deleteIndicesStartingWith(es, prefix);
    await es.close();
  }

  const [alone, aloneBalanced, sharing, three] = results.map(median);
  const [ofAlone, , ofSharing, ofThree] = results.map(unexpectedIn);
  const rows = [
    // One school's proxy that turned sharing on must stay usable for bursts of a few hundred events per second.
    ratioRow('accepted events req/s, 1 proxy sharing state in Elasticsearch', sharing!.rps, alone!.rps, '1 proxy alone', { atLeast: 0.5 }, 0, ofSharing!.with(ofAlone!)),
    // A district adds proxies for load: three sharing state must not take fewer events than one alone.
    ratioRow(`accepted events req/s, ${PROXIES} proxies sharing state behind haproxy`, three!.rps, alone!.rps, '1 proxy alone', { atLeast: 1 }, 0, ofThree!.with(ofAlone!)),
  ];
  const command = `wrk ${WRK_ARGS.join(' ')} -s bench/webhook/webhook.lua <url> -- fresh <key> ${AGENT}`;
  const lines = [
    `${runLine(SCRIPT, load)} wrk, haproxy, Elasticsearch (the testbed's single node) and every proxy on the same machine.`,
    `Services on Node ${process.version}: the testbed config with the reconciler quiet (\`watch: false\`, \`interval: 24h\`) and one http-front each;`,
    `the sharing ones with \`cluster.shared_state: elasticsearch\` on an index prefix of this run's own. haproxy: test/support/haproxy.ts (round robin, /readyz checks).`,
    'Each accepted event is a `service-eventhandler` event with a username, cached in its proxy\'s webhook-store; sharing, its id is first created in',
    'Elasticsearch (one `_bulk` of `create`s per event-loop turn of a front, through the dedupe actor).',
    '',
    `Command per target and round: \`${command}\` (${ROUNDS} rounds interleaving the targets after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; the table shows the median round).`,
    'CPU µs/event is user + system time per accepted event of the processes serving the target, from /proc: the proxies, haproxy where it is in',
    'front, and Elasticsearch where the state is shared (the testbed\'s node, which other work on the machine may use too: an upper bound).',
    '',
    table(targets, results, alone!),
    '',
    ...rows.map(verdictLine),
    `What sharing costs per accepted event: ${(sharing!.cpuUsPerRequest - alone!.cpuUsPerRequest).toFixed(1)} µs of CPU (proxy and Elasticsearch) on top of ${alone!.cpuUsPerRequest.toFixed(1)} µs alone;`,
    `p50 ${sharing!.p50ms.toFixed(2)} ms against ${alone!.p50ms.toFixed(2)} ms. haproxy alone takes ${(aloneBalanced!.cpuUsPerRequest - alone!.cpuUsPerRequest).toFixed(1)} µs per event.`,
    `On this machine all ${PROXIES} proxies, the balancer, Elasticsearch and wrk share 2 cores: the ${PROXIES}-proxy figure is what sharing costs, not what`,
    'three machines would take.',
    '',
  ];
  return report(HEADING, lines, rows);
}

const SCRIPT = 'dist/bench/webhook/several-proxies.js';
export const severalProxiesBench: Benchmark = { name: 'webhook-proxies', script: SCRIPT, run };

await runAlone(import.meta.url, severalProxiesBench);
