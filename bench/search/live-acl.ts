/**
 * What the live ACL check (src/search/live-acl.ts, `wiki.live_acl`) costs a search: `POST /wiki/search` as anna over
 * real pages on the testbed share `schule`, through three services in the same run, rounds interleaved:
 * - the check off (the index alone decides: the peer),
 * - the check on with the default max_age (1 s: a page's descriptor is read once a second at most),
 * - the check on with max_age 1 ms (every search reads the descriptors of its 10 hits from Samba: the worst case).
 *   node dist/bench/search/live-acl.js
 * Needs wrk on PATH and the testbed up. Writes its section "## Wiki search: live ACL check".
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSearchError } from '../../src/search/search-failure.js';
import type { SearchResult } from '../../src/search/search.js';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { startService, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { layout } from '../../test/testbed/layout.js';
import { passAfter } from '../../test/integration/wiki/wiki-service.js';
import { runJob, shareAs, writeFiles } from '../../test/integration/reconcile/support.js';
import { judged, loadAverage, report, runAlone, runLine, Unexpected, type BenchReport, type Benchmark } from '../results.js';
import { callerHeaders, CALLER } from './caller.js';
import { LATENCY_ARGS, WARMUP_ARGS, wrk, type Measurement, type Processes, type Target } from './run.js';

const HEADING = '## Wiki search: live ACL check';
const SCRIPT = 'dist/bench/search/live-acl.js';
const SHARE = 'schule';
/** Pages that match the query: one page of hits. */
const PAGES = 10;
const WORD = 'Livecheckwort';
const ROUNDS = 5;
/** Throughput: 8 connections, as the search bench. */
const LOAD_ARGS = ['-t1', '-c8', '-d5s'];

const VARIANTS = [
  { name: 'live ACL check off', live_acl: { enabled: false } },
  { name: 'live ACL check on, max_age 1s (default)', live_acl: { enabled: true, max_age: '1s' } },
  { name: 'live ACL check on, max_age 1ms (every search reads its hits\' descriptors)', live_acl: { enabled: true, max_age: '1ms' } },
];

const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measureAll(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const load = loadAverage();
  const smb = new SmbClient();
  const anna = shareAs(smb, env, { user: 'anna', password: env.users['anna']!.password }, SHARE);
  const folder = `_bench-live-acl-${randomBytes(4).toString('hex')}`;
  const work = mkdtempSync(join(tmpdir(), 'live-acl-bench-'));
  const services: RunningService[] = [];
  try {
    await anna.mkdir(`${folder}/.wiki`, { recursive: true });
    await writeFiles(anna, Array.from({ length: PAGES }, (_, i): [string, string] =>
      [`${folder}/.wiki/seite-${i}.md`, `# Seite ${i}\n\n${WORD} und etwas Text, damit die Seite nach etwas aussieht.\n`]));
    for (const variant of VARIANTS) {
      const started = Date.now();
      const service = await startService({ reconciler: { interval: '24h' }, wiki: { live_acl: variant.live_acl } });
      services.push(service);
      await passAfter(service, started);
    }
    const body = join(work, 'search.json');
    writeFileSync(body, JSON.stringify({ q: WORD }));
    const { authorization, groups } = callerHeaders(env);
    const targets: Target[] = VARIANTS.map((variant, i) => ({ name: `service POST /wiki/search, ${variant.name}`, url: services[i]!.url, luaArgs: ['/wiki/search', body, authorization, groups] }));
    // Each must answer the same pages, or the comparison means nothing.
    const answers = await Promise.all(services.map(async (service) => (await (await fetch(`${service.url}/wiki/search`, {
      method: 'POST', headers: { authorization, 'x-service-groups': groups, 'content-type': 'application/json' }, body: readFileSync(body),
    })).json()) as SearchResult));
    const paths = answers.map((answer) => answer.hits.map((hit) => hit.path).sort().join());
    if (answers[0]!.hits.length !== PAGES || paths.some((p) => p !== paths[0])) {
      throw new Error(`the services disagree or miss pages: ${answers.map((a) => a.hits.length).join(' / ')} hits`);
    }
    const elasticsearch = [Number(readFileSync(layout.elasticsearch.pidFile, 'utf8').trim())];
    const pidsOf = (i: number): Processes => ({ service: services[i]!.process.pid!, elasticsearch });
    for (const [i, target] of targets.entries()) await wrk(WARMUP_ARGS, target, pidsOf(i));
    const single: Measurement[][] = targets.map(() => []);
    const loaded: Measurement[][] = targets.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const one = await wrk(LATENCY_ARGS, target, pidsOf(i));
        const many = await wrk(LOAD_ARGS, target, pidsOf(i));
        single[i]!.push(one);
        loaded[i]!.push(many);
        console.log(`round ${round} ${target.name}: c1 p50 ${one.p50ms.toFixed(2)} ms, p99 ${one.p99ms.toFixed(2)} ms; c8 ${many.rps.toFixed(0)} req/s`);
      }
    }
    const p50 = single.map((all) => middle(all.map((m) => m.p50ms)));
    const rps = loaded.map((all) => middle(all.map((m) => m.rps)));
    const added = p50.map((value) => value - p50[0]!);
    const unexpected = [...single.flat(), ...loaded.flat()].reduce((all, m) => all.with(m.unexpected), new Unexpected());
    const summary = [
      judged({ figure: 'search p50 ms, 1 connection, live ACL check on (default)', service: p50[1]!.toFixed(2), peer: `${p50[0]!.toFixed(2)} (check off)`, ratio: `${added[1]! >= 0 ? '+' : ''}${added[1]!.toFixed(2)} ms`, target: '≤ +0.5 ms' },
        added[1]! <= 0.5, unexpected),
    ];
    const lines = [
      runLine(SCRIPT, load),
      '',
      `Pages: ${PAGES} real pages in a fresh folder of the testbed share \`${SHARE}\`, written over SMB as anna and indexed by a pass; the query \`{"q":"${WORD}"}\` finds all ${PAGES} (one page of hits), as ${CALLER.user} with \`X-Service-Groups: ${CALLER.groups.join(', ')}\`; the three services answered the same pages.`,
      `Commands per target and round: \`wrk ${LATENCY_ARGS.join(' ')}\` then \`wrk ${LOAD_ARGS.join(' ')}\`, \`-s bench/search/search.lua <url> -- /wiki/search <body-file> <authorization> <groups>\` (${ROUNDS} rounds interleaving the services after a \`${WARMUP_ARGS.join(' ')}\` warm-up each; medians of the rounds).`,
      '',
      '| service | p50 ms, 1 connection | rounds p50 ms | p99 ms, 1 connection | added p50 ms vs off | req/s, 8 connections | × off | service CPU µs/request (8 connections) |',
      '|---|---:|---|---:|---:|---:|---:|---:|',
      ...targets.map((target, i) => {
        const cpu = middle(loaded[i]!.map((m) => m.serviceCpuUs));
        return `| ${target.name} | ${p50[i]!.toFixed(2)} | ${single[i]!.map((m) => m.p50ms.toFixed(2)).join(', ')} | ${middle(single[i]!.map((m) => m.p99ms)).toFixed(2)} | ${added[i]!.toFixed(2)} | ${rps[i]!.toFixed(0)} | ${(rps[i]! / rps[0]!).toFixed(2)} | ${cpu.toFixed(0)} |`;
      }),
      '',
      `Unexpected answers in all rounds: ${unexpected.total}.`,
      '',
    ];
    return report(HEADING, lines, summary);
  } finally {
    await removePages(anna, folder, services[0]).catch((error: unknown) => console.error(`could not remove ${folder}: ${describeSearchError(error).error}`));
    await Promise.all(services.map((service) => service.stop()));
    await smb.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Deletes the pages and their folder, then lets a pass of a running service take them out of the index. */
async function removePages(share: SmbShare, folder: string, service: RunningService | undefined): Promise<void> {
  for (let i = 0; i < PAGES; i++) await share.unlink(`${folder}/.wiki/seite-${i}.md`).catch(() => undefined);
  await share.rmdir(`${folder}/.wiki`).catch(() => undefined);
  await share.rmdir(folder);
  if (service !== undefined) await runJob(service, { kind: 'pass' });
}

async function run(): Promise<BenchReport> {
  try {
    return await measureAll();
  } catch (error) {
    throw new Error(`live ACL check bench failed: ${describeSearchError(error).error}`);
  }
}

export const liveAclBench: Benchmark = { name: 'search live ACL check', script: SCRIPT, run };

await runAlone(import.meta.url, liveAclBench);
