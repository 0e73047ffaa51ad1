/**
 * Wiki search benchmark on the testbed: `POST /wiki/search` through the service next to the same Elasticsearch
 * query (same `acl_allow` / `acl_deny` / share filter, same highlighting) sent straight to Elasticsearch.
 *   node dist/bench/search/run.js
 * Needs wrk on PATH and the testbed up. The pages go into `wiki-md` under a share of their own, `wikibench`,
 * which only the bench's service is configured with: services of other test runs on the same testbed never see
 * the pages and their reconcilers never delete them (a reconciler only diffs the shares it serves; this one
 * cannot walk `wikibench`, which has no files, so it deletes nothing there either).
 * Seeds 50,000 synthetic pages (German-like text, varied ACLs) with `_bulk`, checks that both targets answer the
 * same hits, runs wrk rounds interleaving the two targets, checks the index did not change meanwhile, deletes the
 * pages again, prints a table and writes it under "## Wiki search" in bench/RESULTS.md. Then the same service search
 * against the testbed's 3-node cluster, with all nodes and with one killed (what a node loss costs; on one machine
 * the cluster shares its cores, so it is no faster).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { documentSource } from '../../src/indexing/indexer/bulk.js';
import { bulkWriterOn } from '../../src/indexing/indexer/write-batch.js';
import { IndexWriter } from '../../src/indexing/reconciler/index-writer.js';
import { describeSearchError } from '../../src/search/search-failure.js';
import { silentLog } from '../../src/common/logger.js';
import { createSearchClient } from '../../src/search/client.js';
import { DEFAULT_ALIAS } from '../../src/search/mapping.js';
import type { SearchResult } from '../../src/search/search.js';
import { documentAcl, EVERYONE_SID } from '../../src/wiki/acl.js';
import { buildWikiDocument, type WikiDocument } from '../../src/wiki/document.js';
import { startService, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../test/testbed/env.js';
import {
  clusterNodes, ensureClusterRunning, killClusterNode, runningClusterNode, startClusterNode, stopCluster, waitForCluster,
} from '../../test/testbed/elasticsearch-cluster.js';
import { layout } from '../../test/testbed/layout.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { seededRandom } from '../../test/integration/search/seeded-random.js';
import { startBare, type BareServer } from '../bare-server.js';
import { runQueueWaitSeconds } from '../stats.js';
import { wrkAnswers, type WrkSummary } from './answer.js';
import { CALLER, callerHeaders, callerSearchBody } from './caller.js';
import { judged, loadAverage, ratioRow, runAlone, runLine, verdict as verdictOf, report, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { scratchDir } from '../../test/support/scratch-dir.js';

const PAGES = 50_000;
const SEED_BATCH = 2_000;
export const SHARE = 'wikibench';
/**
 * The config of a service over the seeded pages. They exist in the index only, with no file on a share, so the live
 * ACL check (src/search/live-acl.ts) would hide every one of them: it is off here, and what it costs a search is
 * measured over real pages by bench/search/live-acl.ts.
 */
export const SEEDED_SHARE_SERVICE = { smb: { shares: [{ name: SHARE }] }, reconciler: { interval: '24h' }, wiki: { live_acl: { enabled: false } } };
const FOLDERS = 500;
const ROUNDS = 7;
/** Throughput under load: 8 connections keep both targets busy. */
const LOAD_ARGS = ['-t1', '-c8', '-d6s'];
/**
 * Elasticsearch kept less busy, as the service keeps it: behind the service each of its connections waits for the
 * service's part of every search, and Elasticsearch spends more CPU per search when its threads wait and wake more.
 */
const LESS_BUSY_ARGS = ['-t1', '-c4', '-d6s'];
/** Latency without queueing: one connection, one request at a time (under load, p50 is mostly time in queues). */
export const LATENCY_ARGS = ['-t1', '-c1', '-d5s'];
export const WARMUP_ARGS = ['-t1', '-c8', '-d3s'];
const LUA = fileURLToPath(new URL('../../../bench/search/search.lua', import.meta.url));
const HEADING = '## Wiki search';
/** The peer that passes the bytes on (bare-forwarder.ts). */
const FORWARDER = fileURLToPath(new URL('./bare-forwarder.js', import.meta.url));
/** A word on about 5 % of the pages: a typical search with a few hundred visible hits, 10 per page. */
const QUERY = { q: 'Elternabend' };

const SYLLABLES = [
  'schu', 'le', 'klas', 'sen', 'fahrt', 'rat', 'haus', 'auf', 'ga', 'be', 'lehr', 'zim', 'mer', 'ta', 'fel', 'bü',
  'cher', 'pau', 'hof', 'sport', 'hal', 'mu', 'sik', 'kunst', 'raum', 'plan', 'stun', 'de', 'wo', 'che', 'mo', 'nat',
  'jahr', 'zeug', 'nis', 'no', 'ar', 'beit', 'heft', 'buch', 'stift', 'tag', 'fei', 'er', 'fest', 'lauf', 'spiel',
  'grup', 'pe', 'pro', 'jekt', 'kurs', 'fach', 'ü', 'bung', 'prü', 'fung', 'wahl', 'tref', 'fen', 'ord', 'ner',
];
const SMALL_WORDS = ['der', 'die', 'das', 'und', 'ist', 'im', 'mit', 'für', 'auf', 'den', 'von', 'zu', 'am', 'wird', 'bitte', 'alle', 'nach', 'bei'];
/** Words with a known share of pages, so that queries have predictable hit counts. */
const TOPICS: [string, number][] = [['Elternabend', 0.05], ['Klassenfahrt', 0.02], ['Vertretungsplan', 0.08], ['Notenschluss', 0.01]];

/** Words of 2 to 4 SYLLABLES (2 in 5 capitalised) and sentences of them, drawn from `next`; also the pages of clause-cost.ts. */
export function textGenerator(next: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const word = (): string => {
    let w = '';
    for (let n = 2 + Math.floor(next() * 3); n > 0; n--) w += pick(SYLLABLES);
    return next() < 0.4 ? w[0]!.toUpperCase() + w.slice(1) : w;
  };
  const sentence = (topics: string[]): string => {
    const words = Array.from({ length: 6 + Math.floor(next() * 10) }, () => (next() < 0.35 ? pick(SMALL_WORDS) : word()));
    if (topics.length > 0 && next() < 0.3) words.splice(Math.floor(next() * words.length), 0, topics[Math.floor(next() * topics.length)]!);
    const text = words.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  return { word, sentence, pick };
}

interface Sids {
  anna: string;
  indexer: string;
  groups: Record<string, string>;
}

/** One synthetic page as the indexer would render it: Markdown, a DACL with inherited read entries. */
function syntheticPage(i: number, next: () => number, sids: Sids, server: string): WikiDocument {
  const text = textGenerator(next);
  const topics = TOPICS.filter(([, share]) => next() < share).map(([topic]) => topic);
  const paragraphs = Array.from({ length: 3 + Math.floor(next() * 4) }, () =>
    Array.from({ length: 3 + Math.floor(next() * 5) }, () => text.sentence(topics)).join(' '));
  // Topic words always appear once, so the expected hit share holds.
  const markdown = [
    `# ${text.word()} ${text.word()}`,
    '',
    ...paragraphs.flatMap((p, n) => (n % 2 === 1 ? [`## ${text.word()}`, '', p, ''] : [p, ''])),
    ...(topics.length > 0 ? [`- Siehe auch: ${topics.join(', ')}`] : []),
  ].join('\n');
  const { groups } = sids;
  const domainGroups = [groups['Lehrer']!, groups['Domain Users']!, groups['Schueler']!, groups['Verwaltung']!, groups['Lehrkräfte Mathe']!];
  const classGroup = (n: number) => `${groups['Domain Users']!.replace(/-513$/, '')}-${5000 + n}`;
  const allow = [groups['Schul-Admins']!, sids.indexer];
  for (let n = 1 + Math.floor(next() * 3); n > 0; n--) allow.push(next() < 0.6 ? text.pick(domainGroups) : classGroup(Math.floor(next() * 40)));
  if (next() < 0.02) allow.push(EVERYONE_SID);
  const deny = next() < 0.05 ? [groups['Schueler']!] : [];
  const folder = `Ordner-${String(i % FOLDERS).padStart(3, '0')}`;
  const content = Buffer.from(markdown, 'utf8');
  return buildWikiDocument({
    server,
    share: SHARE,
    path: `${folder}/.wiki/${i < FOLDERS ? 'index' : `seite-${i}`}.md`,
    content,
    size: content.length,
    modified: new Date(Date.UTC(2025, 0, 1) + Math.floor(next() * 365 * 86_400_000)),
    acl: documentAcl(allow, deny),
  });
}

export interface Measurement {
  requests: number;
  /** CPU time (user + system, all threads) per request, in µs, of the service process and of Elasticsearch. */
  serviceCpuUs: number;
  esCpuUs: number;
  /** Time per request the threads of the service (or the forwarder) and of Elasticsearch spent waiting for a core, µs. */
  serviceWaitUs: number;
  esWaitUs: number;
  /** Answers other than 200 (wrk counts those ≥ 400), degraded answers (search.lua) and requests that broke; every search asks for a 200 with hits. */
  unexpected: Unexpected;
  /** Searches answered 200 per second: an error is no throughput. */
  rps: number;
  p50ms: number;
  p99ms: number;
}

/** The processes whose CPU time is measured: the service and every Elasticsearch node that runs. */
export interface Processes {
  service: number;
  elasticsearch: number[];
}

/** utime + stime of a process in clock ticks (USER_HZ, 100 on Linux). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export interface Target {
  name: string;
  url: string;
  /** The process whose CPU is the hop's, when not the service. */
  pid?: number;
  /** Arguments for search.lua: path, body file, then the headers of the service call. */
  luaArgs: string[];
  /** wrk's arguments for the throughput rounds, when not LOAD_ARGS; such a target has no latency rounds. */
  loadArgs?: string[];
}

/** Runs wrk asynchronously, so that the driver's progress timer keeps ticking. */
export async function wrk(args: string[], target: Target, pids: Processes): Promise<Measurement> {
  const esTicks = () => pids.elasticsearch.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  const esWait = () => pids.elasticsearch.reduce((sum, pid) => sum + runQueueWaitSeconds(pid), 0);
  const hop = target.pid ?? pids.service;
  const before = { service: cpuTicks(hop), es: esTicks(), serviceWait: runQueueWaitSeconds(hop), esWait: esWait() };
  const { stdout: out } = await promisify(execFile)('wrk', [...args, '-s', LUA, target.url, '--', ...target.luaArgs], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const s = JSON.parse(line.slice('WRK_JSON '.length)) as WrkSummary;
  const { unexpected, answered } = wrkAnswers(target.name, s);
  const perRequestUs = (ticks: number) => (ticks * 10_000) / s.requests;
  return {
    requests: s.requests,
    serviceCpuUs: perRequestUs(cpuTicks(hop) - before.service),
    esCpuUs: perRequestUs(esTicks() - before.es),
    serviceWaitUs: ((runQueueWaitSeconds(hop) - before.serviceWait) * 1e6) / s.requests,
    esWaitUs: ((esWait() - before.esWait) * 1e6) / s.requests,
    unexpected,
    rps: answered / (s.duration_us / 1e6),
    p50ms: s.p50_us / 1000,
    p99ms: s.p99_us / 1000,
  };
}

/** The round with the median req/s. */
export function median(rounds: Measurement[]): Measurement {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

export async function seed(env: TestbedEnv, client: ReturnType<typeof createSearchClient>, pages = PAGES): Promise<string[]> {
  const next = seededRandom(20260521);
  const sids: Sids = { anna: env.users['anna']!.sid, indexer: env.users['svc-indexer']!.sid, groups: env.groups };
  const ids: string[] = [];
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { alias: DEFAULT_ALIAS }, maxOperations: SEED_BATCH, log: silentLog });
  for (let i = 0; i < pages; i++) {
    const doc = syntheticPage(i, next, sids, env.smb.host);
    await writer.upsert(doc.id, JSON.stringify(documentSource(doc)));
    ids.push(doc.id);
  }
  await writer.flush();
  if (writer.counts.rejected > 0) throw new Error(`seeding failed: ${writer.counts.rejected} documents rejected`);
  await client.indices.refresh({ index: DEFAULT_ALIAS });
  await client.indices.forcemerge({ index: DEFAULT_ALIAS, max_num_segments: 1 });
  return ids;
}

export async function unseed(client: ReturnType<typeof createSearchClient>, ids: string[]): Promise<void> {
  const writer = new IndexWriter({ bulk: bulkWriterOn(client), target: { alias: DEFAULT_ALIAS }, maxOperations: SEED_BATCH, log: silentLog });
  for (const id of ids) await writer.delete(id);
  await writer.flush();
  await client.indices.refresh({ index: DEFAULT_ALIAS });
}

async function measureAll(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const client = createSearchClient({ nodes: [env.es.url] }, { requestTimeoutMs: 120_000 });
  const work = scratchDir('wiki-search-bench-');
  const started = Date.now();
  const service: RunningService = await startService(SEEDED_SHARE_SERVICE);
  let forwarder: BareServer | undefined;
  let ids: string[] = [];
  let targets: Target[] = [];
  /** Per target: the rounds under load and the rounds with one connection. */
  let loaded: Measurement[][] = [];
  let single: Measurement[][] = [];
  let checked = '';
  const load = loadAverage();
  try {
    forwarder = await startBare(FORWARDER, { args: [env.es.url] });
    await passAfter(service, started);
    const seedStart = Date.now();
    ids = await seed(env, client);
    console.log(`seeded ${ids.length} pages in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    const directBody = join(work, 'direct.json');
    const serviceBody = join(work, 'service.json');
    writeFileSync(directBody, callerSearchBody(env, QUERY, SHARE));
    writeFileSync(serviceBody, JSON.stringify(QUERY));
    const { authorization, groups: header } = callerHeaders(env);
    const directArgs = [`/${DEFAULT_ALIAS}/_search`, directBody];
    targets = [
      { name: 'Elasticsearch directly (same query and ACL filter)', url: env.es.url, luaArgs: directArgs },
      { name: 'service POST /wiki/search', url: service.url, luaArgs: ['/wiki/search', serviceBody, authorization, header] },
      { name: 'Elasticsearch directly, 4 connections (kept less busy)', url: env.es.url, luaArgs: directArgs, loadArgs: LESS_BUSY_ARGS },
      { name: 'bare forwarder in front of Elasticsearch (node:http + undici Pool, bytes passed through)', url: forwarder.url, luaArgs: directArgs, pid: forwarder.child.pid! },
    ];
    loaded = targets.map(() => []);
    single = targets.map(() => []);

    // Both must answer the same hits, or the comparison means nothing.
    const searchViaService = async () => (await (await fetch(`${service.url}/wiki/search`, {
      method: 'POST',
      headers: { authorization, 'x-service-groups': header, 'content-type': 'application/json' },
      body: JSON.stringify(QUERY),
    })).json()) as SearchResult;
    const viaService = await searchViaService();
    const direct = (await (await fetch(`${env.es.url}/${DEFAULT_ALIAS}/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: readFileSync(directBody),
    })).json()) as { hits: { total: { value: number }; hits: { _source: { share: string; path: string } }[] } };
    const servicePaths = viaService.hits.map((h) => `${h.share}:${h.path}`);
    const directPaths = direct.hits.hits.map((h) => `${h._source.share}:${h._source.path}`);
    if (viaService.total !== direct.hits.total.value || servicePaths.join() !== directPaths.join() || viaService.total === 0) {
      throw new Error(`the targets disagree: service ${viaService.total} ${servicePaths.join()} / direct ${direct.hits.total.value} ${directPaths.join()}`);
    }
    checked = `both answer ${viaService.total} visible hits of ${ids.length} pages, the same 10 first`;
    console.log(checked);

    const pids: Processes = {
      service: service.process.pid!,
      elasticsearch: [Number(readFileSync(layout.elasticsearch.pidFile, 'utf8').trim())],
    };
    for (const target of targets) await wrk(WARMUP_ARGS, target, pids);
    const firstTotal = viaService.total;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const load = await wrk(target.loadArgs ?? LOAD_ARGS, target, pids);
        loaded[i]!.push(load);
        const measured = `round ${round} ${target.name}: ${load.rps.toFixed(0)} req/s (p50 ${load.p50ms.toFixed(2)} ms, CPU µs/request service ${load.serviceCpuUs.toFixed(0)}, Elasticsearch ${load.esCpuUs.toFixed(0)})`;
        if (target.loadArgs !== undefined) {
          console.log(measured);
          continue;
        }
        const one = await wrk(LATENCY_ARGS, target, pids);
        single[i]!.push(one);
        // On 2 cores the one-connection tail follows how long the busy threads wait for a core.
        console.log(`${measured}; c1 p50 ${one.p50ms.toFixed(2)} ms, p99 ${one.p99ms.toFixed(2)} ms, µs/request waiting for a core: `
          + `${target.pid === undefined ? 'service' : 'forwarder'} ${one.serviceWaitUs.toFixed(0)}, Elasticsearch ${one.esWaitUs.toFixed(0)}`);
      }
    }
    // Another test run may have rebuilt wiki-md meanwhile (dropping the seeded pages): then the numbers mean nothing.
    const { count } = await client.count({ index: DEFAULT_ALIAS, query: { term: { share: SHARE } } });
    if (count !== ids.length) throw new Error(`wiki-md changed during the run: ${count} of ${ids.length} seeded pages left`);
    if ((await searchViaService()).total !== firstTotal) throw new Error('the service answers differently after the run');
  } finally {
    await unseed(client, ids).catch((error: unknown) => console.error(`could not remove the seeded pages: ${describeSearchError(error).error}`));
    await service.stop();
    forwarder?.child.kill('SIGTERM');
    await client.close();
  }

  const cluster = await measureCluster(env, targets[1]!.luaArgs);
  targets.push(...cluster.targets);
  loaded.push(...cluster.loaded);
  single.push(...cluster.single);

  const [direct, viaService, lessBusy, viaForwarder] = loaded.map(median) as [Measurement, Measurement, Measurement, Measurement];
  const [directOne, serviceOne] = [median(single[0]!), median(single[1]!)];
  const throughput = viaService.rps / direct.rps;
  const addedP50 = serviceOne.p50ms - directOne.p50ms;
  /** The unexpected answers of all rounds of these measurements, the warm-ups left out. */
  const unexpectedIn = (rounds: Measurement[]) => rounds.reduce((all, m) => all.with(m.unexpected), new Unexpected());
  const everyRound = targets.map((_, i) => unexpectedIn([...loaded[i]!, ...single[i]!]));
  const rows = targets.map((target, i) => {
    const load = median(loaded[i]!);
    const one = single[i]!.length > 0 ? median(single[i]!) : undefined;
    return `| ${target.name} | ${load.rps.toFixed(0)} | ${loaded[i]!.map((r) => r.rps.toFixed(0)).join(', ')} | ${one?.p50ms.toFixed(2) ?? '–'} | ${one?.p99ms.toFixed(2) ?? '–'} | ${load.p50ms.toFixed(2)} | ${load.p99ms.toFixed(2)} | ${load.serviceCpuUs.toFixed(0)} | ${load.esCpuUs.toFixed(0)} | ${everyRound[i]!.total} |`;
  });
  // Throughput follows the CPU on these shared cores: at most what one direct search costs over what one service search costs.
  const ceiling = direct.esCpuUs / (viaService.esCpuUs + viaService.serviceCpuUs);
  // Each figure stands for the rounds it is taken from, of the service and of Elasticsearch directly.
  const summary = [
    ratioRow('POST /wiki/search req/s, 8 connections', viaService.rps, direct.rps, 'Elasticsearch directly', { atLeast: 0.85 }, 0, unexpectedIn([...loaded[0]!, ...loaded[1]!])),
    judged({ figure: 'search p50 ms, 1 connection', service: serviceOne.p50ms.toFixed(2), peer: `${directOne.p50ms.toFixed(2)} (Elasticsearch directly)`, ratio: `${addedP50 >= 0 ? '+' : ''}${addedP50.toFixed(2)} ms`, target: '≤ +0.5 ms' },
      addedP50 <= 0.5, unexpectedIn([...single[0]!, ...single[1]!])),
  ];
  const unexpected = everyRound.reduce((all, u) => all.with(u), new Unexpected());
  const verdict = `Target ${verdictOf(summary.every((row) => row.met))}: throughput ${throughput.toFixed(2)} × direct (target ≥ 0.85), added p50 ${addedP50.toFixed(2)} ms (target ≤ 0.5 ms)`
    + `${unexpected.total === 0 ? '' : `, and unexpected answers: ${unexpected}`}.`;
  const lines = [
    `${runLine(SCRIPT, load)} wrk, the service and Elasticsearch on the same machine.`,
    `Data: ${PAGES.toLocaleString('en')} synthetic pages seeded into \`wiki-md\` with \`_bulk\` under the share \`${SHARE}\`, the only share of the bench's service (German-like Markdown rendered by the indexer's code, inherited allow entries for 1–3 of 45 groups plus admins, 5 % deny Schueler); the index also holds the pages of the testbed's shares.`,
    `Query: \`${JSON.stringify(QUERY)}\` as anna with \`X-Service-Groups: ${CALLER.groups.join(', ')}\` (login and groups cached after the first call); ${checked}.`,
    'Direct: the request body the service sends, byte for byte (bool filter on acl_allow and the (server, share) pair, must_not on acl_deny for the whole token, highlighting), posted to `/wiki-md/_search`.',
    '',
    `Commands per target and round: \`wrk ${LOAD_ARGS.join(' ')} -s bench/search/search.lua <url> -- <path> <body-file> [<authorization> <groups>]\` for throughput, then the same with \`${LATENCY_ARGS.join(' ')}\` for latency without queueing (${ROUNDS} rounds interleaving the targets after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; the table shows the median rounds); the row with 4 connections: \`wrk ${LESS_BUSY_ARGS.join(' ')}\` for throughput only.`,
    '',
    '| target | req/s answered 200, 8 connections (median) | rounds req/s | p50 ms, 1 connection | p99 ms, 1 connection | p50 ms, 8 connections | p99 ms, 8 connections | service (or forwarder) CPU µs/request | Elasticsearch CPU µs/request | unexpected answers (all rounds) |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Ratios: throughput service / direct = ${throughput.toFixed(2)} (8 connections); p50 added by the service = ${addedP50.toFixed(2)} ms (1 connection); p99 service / direct = ${(serviceOne.p99ms / directOne.p99ms).toFixed(2)} (1 connection).`,
    'CPU per request is user + system time of the whole process (all threads) during the 8-connection round, from /proc; it depends less on other load than req/s does. The service and Elasticsearch share the machine\'s cores, so every µs the service spends per request is taken from Elasticsearch.',
    `CPU ceiling of the ratio on these cores: Elasticsearch's CPU per direct search over the CPU of one search through the service, Elasticsearch's and the service's: ${direct.esCpuUs.toFixed(0)} / (${viaService.esCpuUs.toFixed(0)} + ${viaService.serviceCpuUs.toFixed(0)}) = ${ceiling.toFixed(2)} ×. Elasticsearch spends more per search behind the service than directly: each of the service's connections to it waits for the service's part of every search, and with its connections less busy its threads wait and wake more; the direct rounds with ${LESS_BUSY_ARGS[1]!.slice(2)} connections (${lessBusy.rps.toFixed(0)} req/s, ${lessBusy.esCpuUs.toFixed(0)} µs) show that part without the service.`,
    `The bare forwarder is the floor of any hop in front of Elasticsearch on these cores (its process does nothing but pass the bytes on): ${(viaForwarder.rps / direct.rps).toFixed(2)} × direct, with ${viaForwarder.serviceCpuUs.toFixed(0)} µs of its own and ${viaForwarder.esCpuUs.toFixed(0)} µs of Elasticsearch's CPU per search.`,
    `The cluster rows: the same service search against the testbed's 3-node cluster (\`npm run testbed -- cluster up\`: 512 MB heap per node, the same machine), the pages seeded there with one replica (the default for several nodes); ${CLUSTER_ROUNDS} rounds each with all three nodes and after one node was killed (SIGKILL; started again afterwards). Elasticsearch CPU is the sum over the nodes that run.`,
    'Every search asks for a 200: any other answer (wrk counts those ≥ 400) or a broken request is unexpected, no throughput, and leaves the figures it stands for unmet.',
    unexpected.total === 0 ? 'Every response was 200.' : `NOT every response was 200: ${unexpected}.`,
    '',
    verdict,
    '',
  ];
  return report(HEADING, lines, summary);
}

/** Rounds per cluster state (all nodes, one node down): fewer than for the main comparison, which has a target. */
const CLUSTER_ROUNDS = 3;

/**
 * The service's search against the testbed's 3-node cluster, with all nodes and with one killed: the same pages
 * seeded there, the same wrk rounds. Starts the cluster when it is down and stops what it started.
 */
async function measureCluster(env: TestbedEnv, serviceLuaArgs: string[]): Promise<{ targets: Target[]; loaded: Measurement[][]; single: Measurement[][] }> {
  const startedNodes = await ensureClusterRunning();
  const client = createSearchClient({ nodes: clusterNodes }, { requestTimeoutMs: 120_000 });
  const started = Date.now();
  const service = await startService({ ...SEEDED_SHARE_SERVICE, elasticsearch: { url: undefined, nodes: [...clusterNodes] } });
  const victim = clusterNodes.length - 1;
  const targets: Target[] = ['3-node cluster', '3-node cluster, one node down'].map((state) => ({
    name: `service POST /wiki/search, ${state}`, url: service.url, luaArgs: serviceLuaArgs,
  }));
  const loaded: Measurement[][] = [[], []];
  const single: Measurement[][] = [[], []];
  let ids: string[] = [];
  try {
    await passAfter(service, started);
    ids = await seed(env, client);
    await client.cluster.health({ index: DEFAULT_ALIAS, wait_for_status: 'green', timeout: '180s' });
    for (const [i, target] of targets.entries()) {
      if (i === 1) {
        await killClusterNode(victim);
        await client.cluster.health({ wait_for_nodes: String(clusterNodes.length - 1), timeout: '120s' });
      }
      const pids: Processes = {
        service: service.process.pid!,
        elasticsearch: (await Promise.all(clusterNodes.map((_, n) => runningClusterNode(n)))).filter((pid) => pid !== undefined),
      };
      await wrk(WARMUP_ARGS, target, pids);
      for (let round = 1; round <= CLUSTER_ROUNDS; round++) {
        const load = await wrk(LOAD_ARGS, target, pids);
        const one = await wrk(LATENCY_ARGS, target, pids);
        loaded[i]!.push(load);
        single[i]!.push(one);
        console.log(`round ${round} ${target.name}: ${load.rps.toFixed(0)} req/s (c8, p99 ${load.p99ms.toFixed(2)} ms); c1 p50 ${one.p50ms.toFixed(2)} ms, p99 ${one.p99ms.toFixed(2)} ms`);
      }
    }
  } finally {
    await startClusterNode(victim).then(() => waitForCluster('green'))
      .catch((error: unknown) => console.error(`cluster node not back: ${describeSearchError(error).error}`));
    await unseed(client, ids).catch((error: unknown) => console.error(`could not remove the seeded pages: ${describeSearchError(error).error}`));
    await service.stop();
    await client.close();
    await stopCluster(startedNodes);
  }
  return { targets, loaded, single };
}

/** Elasticsearch errors carry the whole request body; say what failed in one line instead. */
async function run(): Promise<BenchReport> {
  try {
    return await measureAll();
  } catch (error) {
    throw new Error(`search bench failed: ${describeSearchError(error).error}`);
  }
}

const SCRIPT = 'dist/bench/search/run.js';
export const searchBench: Benchmark = { name: 'search', script: SCRIPT, run };

await runAlone(import.meta.url, searchBench);
