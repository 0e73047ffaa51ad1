/**
 * Several proxies of the same shares (issue 43), in one run: one proxy alone as today (shared_state: none), the same
 * behind haproxy (what the balancer costs), one proxy sharing its state in the testbed's Elasticsearch, and three
 * proxies sharing it behind haproxy (round robin), each measured twice, and for the webhooks also three proxies that
 * share the client list but keep each its own ring of event ids, behind haproxy routing each sender by its key:
 * - webhook intake: accepted events per second, with the wrk script of bench/webhook/run.ts (bench/webhook/wrk-rounds.ts);
 * - WebDAV: LOCK+PUT+UNLOCK round trips per second (lock-round-trips.ts), after asking whether a lock taken through
 *   one sharing proxy stops a write through another (whether this build shares locks): the figures say which.
 * Every service has the same config but for shared_state, on an index prefix of this run's own (deleted after).
 *   node dist/bench/several-proxies/run.js     (or npm run bench -- several-proxies)
 * Needs wrk, haproxy (installed on first use) and the testbed up. Writes "## Several proxies: webhook intake and
 * WebDAV locks" in bench/RESULTS.md. Takes about 3 minutes.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { createSearchClient } from '../../src/search/client.js';
import { AdminApi } from '../../test/integration/webhooks/api.js';
import { deleteIndicesStartingWith } from '../../test/support/es-indices.js';
import { startHaproxy, type RunningBalancer } from '../../test/support/haproxy.js';
import { startService, waitFor, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { layout } from '../../test/testbed/layout.js';
import { recordedProcess } from '../../test/testbed/processes.js';
import { loadAverage, ratioRow, runAlone, runLine, report, Unexpected, verdictLine, type BenchReport, type Benchmark, type SummaryRow } from '../results.js';
import { sendOrBreak, type DavOrigin } from '../webdav/requests.js';
import { AGENT, measureRounds, median, ROUNDS, unexpectedIn, WARMUP_ARGS, WRK_ARGS, type Measurement, type Target } from '../webhook/wrk-rounds.js';
import {
  CONCURRENCY, LOCK_SECONDS, measureLockRounds, PAGE, ROUNDS as LOCK_ROUNDS, SECONDS as ROUND_SECONDS, workerPage, writeThroughOtherProxy,
  type LockTarget, type RoundTrips,
} from './lock-round-trips.js';

const HEADING = '## Several proxies: webhook intake and WebDAV locks';
/** The user whose WebDAV requests are measured, as in bench/webdav/run.ts. */
const USER = 'anna';
const PROXIES = 3;

/** A target's figures in a round, whatever it counts (events, round trips). */
interface RoundFigures {
  rps: number;
  p50ms: number;
  p99ms: number;
  cpuUs: number;
  unexpected: Unexpected;
}

/** One row per target: its median round (by rate), every round's rate, and its unexpected answers in all rounds. */
function table(columns: { rate: string; cpu: string }, names: readonly string[], results: RoundFigures[][]): string {
  const alone = median(results[0]!);
  const lines = [
    `| target | ${columns.rate} (median of rounds) | rounds | p50 ms | p99 ms | ${columns.cpu} (processes in the note) | × 1 proxy alone | unexpected answers (all rounds) |`,
    '|---|---:|---|---:|---:|---:|---:|---|',
  ];
  names.forEach((name, i) => {
    const rounds = results[i]!;
    const m = median(rounds);
    const unexpected = unexpectedIn(rounds);
    lines.push(`| ${name} | ${m.rps.toFixed(0)} | ${rounds.map((r) => r.rps.toFixed(0)).join(', ')} | ${m.p50ms.toFixed(2)} | ${m.p99ms.toFixed(2)} | ${m.cpuUs.toFixed(1)} | ${(m.rps / alone.rps).toFixed(2)} | ${unexpected.total === 0 ? 0 : `${unexpected.total} (${unexpected})`} |`);
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
  const balance = async (behind: RunningService[], webhooksByKey = false) => {
    const balancer = await startHaproxy(behind.map((s) => s.url), { webhooksByKey });
    balancers.push(balancer);
    return balancer;
  };
  const es = createSearchClient({ nodes: [env.es.url] });
  const load = loadAverage();
  const basic = { authorization: `Basic ${Buffer.from(`${USER}:${env.users[USER]!.password}`).toString('base64')}` };
  const davOf = (url: string): DavOrigin => ({ base: `${url}/dav/schule/`, headers: basic });
  const dir = `_lockbench-${randomUUID().slice(0, 8)}`;
  let alone: RunningService | undefined;
  let webhooks: { targets: Target[]; results: Measurement[][] } = { targets: [], results: [] };
  let locks: { targets: LockTarget[]; results: RoundTrips[][]; otherProxyWrite: number } = { targets: [], results: [], otherProxyWrite: 0 };
  try {
    alone = await start(common);
    const aloneBalanced = await balance([alone]);
    const sharing = await start(shared);
    const three = [sharing];
    for (let i = 1; i < PROXIES; i++) three.push(await start(shared));
    const threeBalanced = await balance(three);
    // The same client list (the same prefix), each proxy's own ring: cluster.event_ids routed_by_key.
    const routed: RunningService[] = [];
    for (let i = 0; i < PROXIES; i++) routed.push(await start({ ...shared, cluster: { ...shared.cluster, event_ids: 'routed_by_key' } }));
    const routedBalanced = await balance(routed, true);
    const keyOfAlone = (await AdminApi.asAdmin(alone.url, env).register('service-eventhandler')).api_key;
    const keyShared = (await AdminApi.asAdmin(sharing.url, env).register('service-eventhandler')).api_key;
    // Every proxy knows the shared client (within a second) before the rounds start.
    await waitFor(async () => (await Promise.all([...three, ...routed].map((s) => AdminApi.asAdmin(s.url, env).list()))).every((l) => l.body.clients.length === 1), 5_000);
    const pidsOf = (list: RunningService[]) => list.map((s) => s.process.pid!);
    const targets = [
      { name: '1 proxy alone (shared_state: none, as today)', url: alone.url, key: 'alone', pids: pidsOf([alone]) },
      { name: '1 proxy alone behind haproxy', url: aloneBalanced.url, key: 'alone-balanced', pids: [...pidsOf([alone]), aloneBalanced.pid] },
      { name: '1 proxy sharing state in Elasticsearch', url: sharing.url, key: 'sharing', pids: [...pidsOf([sharing]), esPid] },
      { name: `${PROXIES} proxies sharing state behind haproxy`, url: threeBalanced.url, key: 'three', pids: [...pidsOf(three), threeBalanced.pid, esPid] },
    ];
    const webhookKey = (i: number) => (i < 2 ? keyOfAlone : keyShared);
    // One sender (one key): the balancer sends all of it to one of the three, whose ring checks its ids.
    const routedTarget = { name: `${PROXIES} proxies, event ids routed by key behind haproxy (one sender)`, url: routedBalanced.url, pids: [...pidsOf(routed), routedBalanced.pid, esPid] };
    webhooks = {
      targets: [...targets, routedTarget].map(({ name, url, pids }, i): Target => ({ name, expect: 200, url, luaArgs: ['fresh', webhookKey(i), AGENT], pids })),
      results: [],
    };
    webhooks.results = await measureRounds(webhooks.targets);

    const lockTargets = targets.map(({ name, url, key, pids }): LockTarget => ({ name, key, pids, ...davOf(url) }));
    await makePages(davOf(alone.url), dir, lockTargets);
    locks = {
      targets: lockTargets,
      otherProxyWrite: await writeThroughOtherProxy(davOf(three[0]!.url), davOf(three[1]!.url), `${dir}/probe.md`),
      results: [],
    };
    locks.results = await measureLockRounds(lockTargets, dir);
  } finally {
    if (alone !== undefined) await removePages(davOf(alone.url), dir);
    await Promise.all(balancers.map((b) => b.stop()));
    await Promise.all(services.map((s) => s.stop()));
    await deleteIndicesStartingWith(es, prefix);
    await es.close();
  }
  return report(HEADING, [...webhookLines(load, webhooks.targets, webhooks.results), ...lockLines(locks.targets, locks.results, locks.otherProxyWrite)], [
    ...webhookRows(webhooks.results), ...lockRows(locks.results, locks.otherProxyWrite),
  ]);
}

/** The folder of the lock round trips and each worker's page of each target (and the probe's), written through `origin`. */
async function makePages(origin: DavOrigin, dir: string, targets: readonly LockTarget[]): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  try {
    const made = await sendOrBreak(origin, agent, 'MKCOL', dir, {});
    if (made.status !== 201) throw new Error(`MKCOL ${dir} answered ${made.status}`);
    const pages = [`${dir}/probe.md`, ...targets.flatMap((target) => Array.from({ length: CONCURRENCY }, (_, w) => workerPage(dir, target, w)))];
    for (const page of pages) {
      const put = await sendOrBreak(origin, agent, 'PUT', page, {}, PAGE);
      if (put.status !== 201) throw new Error(`PUT ${page} answered ${put.status}`);
    }
  } finally {
    agent.destroy();
  }
}

/**
 * Deletes the folder through the proxy that keeps its own locks (none of the sharing proxies' locks stop it); once
 * more after the locks' timeout when one of its own was left (an UNLOCK that failed).
 */
async function removePages(origin: DavOrigin, dir: string): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  try {
    let deleted = await sendOrBreak(origin, agent, 'DELETE', dir, {});
    if (deleted.status === 423) {
      await new Promise((resolve) => setTimeout(resolve, (LOCK_SECONDS + 1) * 1000));
      deleted = await sendOrBreak(origin, agent, 'DELETE', dir, {});
    }
    if (deleted.status !== 204) console.warn(`the folder ${dir} of the share schule was not deleted (${deleted.status}): delete it by hand`);
  } finally {
    agent.destroy();
  }
}

function webhookLines(load: string, targets: Target[], results: Measurement[][]): string[] {
  const [alone, aloneBalanced, sharing] = results.map(median);
  const command = `wrk ${WRK_ARGS.join(' ')} -s bench/webhook/webhook.lua <url> -- fresh <key> ${AGENT}`;
  return [
    `${runLine(SCRIPT, load)} wrk, haproxy, Elasticsearch (the testbed's single node) and every proxy on the same machine.`,
    `Services on Node ${process.version}: the testbed config with the reconciler quiet (\`watch: false\`, \`interval: 24h\`) and one http-front each;`,
    `the sharing ones with \`cluster.shared_state: elasticsearch\` on an index prefix of this run's own. haproxy: test/support/haproxy.ts (round robin, /readyz checks).`,
    `On this machine all ${PROXIES} proxies, the balancer, Elasticsearch and the driver share 2 cores: the ${PROXIES}-proxy figures are what sharing costs, not what`,
    'three machines would take.',
    '',
    '### Webhook intake',
    '',
    'Each accepted event is a `service-eventhandler` event with a username, cached in its proxy\'s webhook-store; sharing, its id is first created in',
    'Elasticsearch (one `_bulk` of `create`s per event-loop turn of a front, through the dedupe actor).',
    `Command per target and round: \`${command}\` (${ROUNDS} rounds interleaving the targets after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; the table shows the median round).`,
    'CPU µs/event is user + system time per accepted event of the processes serving the target, from /proc: the proxies, haproxy where it is in',
    'front, and Elasticsearch where the state is shared (the testbed\'s node, which other work on the machine may use too: an upper bound).',
    '',
    table({ rate: 'req/s accepted', cpu: 'CPU µs/event' }, targets.map((t) => t.name), results.map((rounds) => rounds.map((r) => ({ ...r, cpuUs: r.cpuUsPerRequest })))),
    '',
    ...webhookRows(results).map(verdictLine),
    `What sharing costs per accepted event: ${(sharing!.cpuUsPerRequest - alone!.cpuUsPerRequest).toFixed(1)} µs of CPU (proxy and Elasticsearch) on top of ${alone!.cpuUsPerRequest.toFixed(1)} µs alone;`,
    `p50 ${sharing!.p50ms.toFixed(2)} ms against ${alone!.p50ms.toFixed(2)} ms. haproxy alone takes ${(aloneBalanced!.cpuUsPerRequest - alone!.cpuUsPerRequest).toFixed(1)} µs per event.`,
    'Where the shared event ids cost too much, the alternative is the last row: `cluster.event_ids: routed_by_key` keeps a ring per proxy and the',
    'balancer routes each sender by its key (`balance hdr(X-Webhook-Key)`, README, More than one machine), so that an event sent twice reaches the same',
    'proxy; the client list stays shared. With wrk\'s one sender all its events reach one of the three proxies: the figure is what one sender gets.',
    '',
  ];
}

function webhookRows(results: Measurement[][]): SummaryRow[] {
  const [alone, aloneBalanced, sharing, three, routed] = results.map(median);
  const [ofAlone, ofAloneBalanced, ofSharing, ofThree, ofRouted] = results.map(unexpectedIn);
  return [
    // One school's proxy that turned sharing on must stay usable for bursts of a few hundred events per second.
    ratioRow('accepted events req/s, 1 proxy sharing state in Elasticsearch', sharing!.rps, alone!.rps, '1 proxy alone', { atLeast: 0.5 }, 0, ofSharing!.with(ofAlone!)),
    // A district adds proxies for load: three sharing state must not take fewer events than one alone.
    ratioRow(`accepted events req/s, ${PROXIES} proxies sharing state behind haproxy`, three!.rps, alone!.rps, '1 proxy alone', { atLeast: 1 }, 0, ofThree!.with(ofAlone!)),
    // The alternative keeps the single proxy's check: a sender routed to one of three gets what one proxy behind the
    // same balancer gives it, but for the other proxies' idle cost on the shared cores.
    ratioRow(`accepted events req/s, ${PROXIES} proxies, event ids routed by key behind haproxy`, routed!.rps, aloneBalanced!.rps, '1 proxy alone behind haproxy', { atLeast: 0.9 }, 0, ofRouted!.with(ofAloneBalanced!)),
  ];
}

/** Whether this build shares locks: a write without the token through another sharing proxy was refused (423). */
const locksShared = (otherProxyWrite: number) => otherProxyWrite === 423;
/** What the lock figures of a build that keeps locks per proxy are marked with. */
const BEFORE_SHARED_LOCKS = ' (before shared locks)';

function lockLines(targets: LockTarget[], results: RoundTrips[][], otherProxyWrite: number): string[] {
  const [alone, aloneBalanced, sharing] = results.map(median);
  const shared = locksShared(otherProxyWrite);
  return [
    `### WebDAV LOCK+PUT+UNLOCK${shared ? '' : BEFORE_SHARED_LOCKS}`,
    '',
    `The same services and balancers, as \`${USER}\` on the share \`schule\`: ${CONCURRENCY} workers per target, each locking its own 4 KiB page (exclusive, depth 0,`,
    `\`Timeout: Second-${LOCK_SECONDS}\`), writing it with the token in the If header and unlocking it, one round trip after the other on kept-alive connections,`,
    `for ${ROUND_SECONDS} s per round (${LOCK_ROUNDS} rounds interleaving the targets after a 1 s warm-up each; the table shows the median round). A round trip counts when the LOCK`,
    'answered 200 with a token, the PUT 204 and the UNLOCK 204; every other answer is unexpected (by method and status). Behind haproxy the three requests',
    'of a round trip go to the proxies in turn, so they measure locks shared across proxies. CPU µs/round trip: of the same processes as for the webhooks (Samba\'s, the same for every target, left out).',
    shared
      ? `Locks are shared in this build: a PUT without the token through a second sharing proxy, while the lock was held through the first, answered ${otherProxyWrite}.`
      : `Locks are NOT shared in this build: a PUT without the token through a second sharing proxy, while the lock was held through the first, answered ${otherProxyWrite}`
        + ' (423 where locks are shared). These figures are from before shared locks: the sharing proxies keep their locks as one alone does, so the'
        + ` ${PROXIES}-proxy round trips fail whenever their requests reach different proxies (its unexpected answers), and the 1-proxy sharing figure asks`
        + ' the cluster for nothing (WebDAV keeps nothing there yet). Run it again once locks are shared.',
    '',
    table({ rate: 'round trips/s as asked', cpu: 'CPU µs/round trip' }, targets.map((t) => t.name), results.map((rounds) => rounds.map((r) => ({ ...r, cpuUs: r.cpuUsPerRoundTrip })))),
    '',
    ...lockRows(results, otherProxyWrite).map(verdictLine),
    `What sharing costs per round trip (three requests): ${(sharing!.cpuUsPerRoundTrip - alone!.cpuUsPerRoundTrip).toFixed(0)} µs of CPU (proxy and Elasticsearch) on top of ${alone!.cpuUsPerRoundTrip.toFixed(0)} µs alone,`,
    `${((sharing!.cpuUsPerRoundTrip - alone!.cpuUsPerRoundTrip) / 3).toFixed(0)} µs per request; p50 ${sharing!.p50ms.toFixed(2)} ms against ${alone!.p50ms.toFixed(2)} ms. haproxy alone takes ${(aloneBalanced!.cpuUsPerRoundTrip - alone!.cpuUsPerRoundTrip).toFixed(0)} µs per round trip.`,
    '',
  ];
}

function lockRows(results: RoundTrips[][], otherProxyWrite: number): SummaryRow[] {
  const [alone, , sharing, three] = results.map(median);
  const [ofAlone, , ofSharing, ofThree] = results.map(unexpectedIn);
  const marked = locksShared(otherProxyWrite) ? '' : BEFORE_SHARED_LOCKS;
  return [
    // The same goals as the webhooks': a proxy that shares its state stays usable, three take at least what one alone does.
    ratioRow(`LOCK+PUT+UNLOCK round trips/s, 1 proxy sharing state in Elasticsearch${marked}`, sharing!.rps, alone!.rps, '1 proxy alone', { atLeast: 0.5 }, 0, ofSharing!.with(ofAlone!)),
    ratioRow(`LOCK+PUT+UNLOCK round trips/s, ${PROXIES} proxies sharing state behind haproxy${marked}`, three!.rps, alone!.rps, '1 proxy alone', { atLeast: 1 }, 0, ofThree!.with(ofAlone!)),
  ];
}

const SCRIPT = 'dist/bench/several-proxies/run.js';
export const severalProxiesBench: Benchmark = { name: 'several-proxies', script: SCRIPT, run };

await runAlone(import.meta.url, severalProxiesBench);
