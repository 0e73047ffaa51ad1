/**
 * Soak of the service under a mixed load; opt-in (`npm run soak`), not part of `npm test` or `npm run bench`.
 *   node dist/bench/soak/run.js          (SOAK_MINUTES shortens the soak for trials; 10 by default)
 * The mix, in turn: a webhook post, a wiki search, a WebDAV GET of a 4 KiB page, a WebDAV PUT of a 4 KiB page with
 * the ETag of its previous write in If-Match, GET /wiki/roots (the request builders of the tests and benchmarks).
 * 1. Maximum throughput of the mix: WORKERS workers each send their next request when the previous one is answered.
 * 2. The soak: HALF that rate on a fixed schedule (open loop), a warm-up, then SOAK_MINUTES minutes, sampling the
 *    service's RSS every second and per minute the requests, errors and p99 latency.
 * Verdicts: no errors; RSS of the last minute at most 10 % above the first minute's (means of the samples);
 * p99 stable, i.e. no minute's p99 above 2 × the median minute's p99. Writes "## Soak" in bench/RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { AdminApi, postWebhook } from '../../test/integration/webhooks/api.js';
import { account, DavClient } from '../../test/integration/webdav/dav-client.js';
import { WikiClient, type Caller } from '../../test/integration/wiki/wiki-service.js';
import { loadAverage, report, runAlone, runLine, SOAK_HEADING, verdict, type BenchReport, type Benchmark } from '../results.js';
import { mebibytes, percentile, residentBytes } from '../stats.js';

const SOAK_MINUTES = Number(process.env['SOAK_MINUTES'] ?? 10);
const WARMUP_S = 30;
/** Requests in flight while measuring the maximum throughput. */
const WORKERS = 16;
const MAX_WARMUP_S = 5;
const MAX_S = 20;
/** Pages the PUTs write; PUTs of one page go one after the other, so that each carries the current ETag. */
const PUT_PAGES = 8;
const CALLER: Caller = { user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] };
const PAGE = randomBytes(2048).toString('hex'); // 4 KiB of text
const SCRIPT = 'dist/bench/soak/run.js';
/** How often the open-loop schedule sends what is due. */
const TICK_MS = 5;
const RSS_GROWTH_LIMIT = 0.1;
const P99_LIMIT = 2;

interface Outcome {
  /** What was wrong with the answer, e.g. `PUT: 412`; undefined when it was the expected one. */
  failure: string | undefined;
  ms: number;
}

/** One request of the mix: `send` resolves with what was wrong with the answer, or undefined. */
interface Request {
  name: string;
  send(): Promise<string | undefined>;
}

/** A failure label from a status (undefined when it is the expected one). */
const unless = (ok: boolean, status: number | string): string | undefined => (ok ? undefined : String(status));

interface PutPage {
  path: string;
  etag: string | undefined;
  /** The page's last PUT; the next one waits for it. */
  chain: Promise<unknown>;
}

/** The mix against one service, with the fixtures it needs (a folder of its own on `schule`). */
async function mixFor(service: RunningService): Promise<{ requests: Request[]; cleanup(): Promise<void> }> {
  const env = await readTestbedEnv();
  const key = (await AdminApi.asAdmin(service.url, env).register('platform-api')).api_key;
  const dav = new DavClient(service, account(env, CALLER.user));
  const wiki = new WikiClient(service.url, env);
  const dir = `_soak-${randomBytes(4).toString('hex')}`;
  if ((await dav.mkcol(dir)) !== 201) throw new Error(`MKCOL ${dir} failed`);
  if (!(await dav.put(`${dir}/page.md`, PAGE)).ok) throw new Error(`PUT ${dir}/page.md failed`);
  const pages: PutPage[] = Array.from({ length: PUT_PAGES }, (_, i) => ({ path: `${dir}/put-${i}.md`, etag: undefined, chain: Promise.resolve() }));
  let nextPage = 0;
  const put = (page: PutPage): Promise<string | undefined> =>
    dav.put(page.path, PAGE, page.etag === undefined ? {} : { 'if-match': page.etag }).then(async (res) => {
      await res.arrayBuffer();
      page.etag = res.headers.get('etag') ?? undefined;
      return unless(res.ok && page.etag !== undefined, res.ok ? 'no ETag' : res.status);
    });
  const requests: Request[] = [
    {
      name: 'webhook post',
      send: async () => {
        const { status } = await postWebhook(service.url, { key, userAgent: 'platform-api/1.0', body: '{"event":"soak"}' });
        return unless(status === 200, status);
      },
    },
    {
      name: 'search',
      send: async () => {
        const res = await wiki.request<{ degraded?: boolean }>('/wiki/search', { caller: CALLER, body: { q: 'Pythagoras' } });
        return unless(res.status === 200 && res.body.degraded === undefined, res.status === 200 ? 'degraded' : res.status);
      },
    },
    {
      name: 'WebDAV GET',
      send: async () => {
        const { status } = await dav.text(`${dir}/page.md`);
        return unless(status === 200, status);
      },
    },
    {
      name: 'WebDAV PUT',
      send: () => {
        // The page's chain moves on as the PUT is queued, not when it starts: queued behind a slow PUT, two later
        // ones would otherwise both wait for it, then run at once with the same If-Match (one 412).
        const page = pages[nextPage++ % pages.length]!;
        const sent = page.chain.then(() => put(page));
        page.chain = sent.catch(() => undefined);
        return sent;
      },
    },
    {
      name: 'GET /wiki/roots',
      send: async () => {
        const { status } = await wiki.request('/wiki/roots', { caller: CALLER });
        return unless(status === 200, status);
      },
    },
  ];
  return {
    requests,
    async cleanup() {
      await Promise.all(pages.map((p) => p.chain));
      await dav.remove(dir);
    },
  };
}

/** Sends one request and times it; a thrown error (connection broke, unreadable body) counts as a failure. */
async function timed(request: Request): Promise<Outcome> {
  const started = performance.now();
  const failure = await request.send().catch((error: unknown) => {
    const cause = error instanceof Error ? (error.cause as { code?: string } | undefined)?.code ?? error.message : String(error);
    return `connection: ${cause}`;
  });
  return { failure: failure === undefined ? undefined : `${request.name}: ${failure}`, ms: performance.now() - started };
}

/** Failures by kind, most frequent first: `WebDAV PUT: 412 ×3, search: degraded ×1`. */
function failureKinds(failures: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
}

/** Closed loop: WORKERS workers through the mix for `seconds`; answers per second and the outcomes. */
async function closedLoop(requests: Request[], seconds: number): Promise<{ rps: number; outcomes: Outcome[] }> {
  const outcomes: Outcome[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: WORKERS }, async (_, w) => {
    for (let n = w; performance.now() < deadline; n++) outcomes.push(await timed(requests[n % requests.length]!));
  }));
  return { rps: outcomes.length / ((performance.now() - started) / 1000), outcomes };
}

interface Minute {
  requests: number;
  /** What was wrong with each failed answer. */
  failures: string[];
  p99: number;
  /** Mean of the RSS samples taken during the minute, bytes. */
  rss: number;
}

/**
 * Open loop: request n of the mix goes out at n / rate seconds, whether or not earlier ones were answered; outcomes
 * and RSS samples are kept per minute of sending (minute 0 is the warm-up).
 */
async function openLoop(requests: Request[], rate: number, pid: number, warmupS: number, minutes: number): Promise<Minute[]> {
  const buckets: { latencies: number[]; failures: string[]; rss: number[] }[] = [];
  const bucketAt = (ms: number) => (ms < warmupS * 1000 ? 0 : Math.min(minutes, 1 + Math.floor((ms - warmupS * 1000) / 60_000)));
  const bucket = (i: number) => (buckets[i] ??= { latencies: [], failures: [], rss: [] });
  const totalMs = (warmupS + minutes * 60) * 1000;
  const started = performance.now();
  const sampler = setInterval(() => bucket(bucketAt(performance.now() - started)).rss.push(residentBytes(pid)), 1000);
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  for (let now = 0; now < totalMs; now = performance.now() - started) {
    for (; sent < (now / 1000) * rate; sent++) {
      const into = bucket(bucketAt(now));
      const done = timed(requests[sent % requests.length]!).then(({ failure, ms }) => {
        into.latencies.push(ms);
        if (failure !== undefined) into.failures.push(failure);
      });
      inFlight.add(done);
      void done.then(() => inFlight.delete(done));
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  clearInterval(sampler);
  await Promise.all(inFlight);
  return buckets.map((b) => {
    const sorted = [...b.latencies].sort((x, y) => x - y);
    return { requests: sorted.length, failures: b.failures, p99: percentile(sorted, 0.99), rss: b.rss.reduce((a, c) => a + c, 0) / b.rss.length };
  });
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const service = await startService();
  const pid = service.process.pid!;
  const mix = await mixFor(service);
  let max: Awaited<ReturnType<typeof closedLoop>>;
  let minutes: Minute[];
  try {
    await closedLoop(mix.requests, MAX_WARMUP_S);
    max = await closedLoop(mix.requests, MAX_S);
    const rate = max.rps / 2;
    console.log(`maximum throughput of the mix: ${max.rps.toFixed(0)} req/s; soaking at ${rate.toFixed(0)} req/s for ${WARMUP_S} s warm-up + ${SOAK_MINUTES} min`);
    minutes = await openLoop(mix.requests, rate, pid, WARMUP_S, SOAK_MINUTES);
  } finally {
    await mix.cleanup().catch((error: unknown) => console.error(`cleanup failed: ${String(error)}`));
    await service.stop();
  }
  const [warmup, ...soaked] = minutes;
  const first = soaked[0]!;
  const last = soaked.at(-1)!;
  const failures = minutes.flatMap((m) => m.failures);
  const errors = failures.length;
  const requests = minutes.reduce((n, m) => n + m.requests, 0);
  const growth = last.rss / first.rss - 1;
  const worstP99 = Math.max(...soaked.map((m) => m.p99));
  // The median minute, not the first: a spike in the first minute must not become the yardstick.
  const typicalP99 = percentile(soaked.map((m) => m.p99).sort((a, b) => a - b), 0.5);
  const maxFailures = max.outcomes.flatMap((o) => (o.failure === undefined ? [] : [o.failure]));
  const rows = minutes.map((m, i) =>
    `| ${i === 0 ? `warm-up (${WARMUP_S} s)` : i} | ${m.requests} | ${m.failures.length} | ${m.p99.toFixed(1)} | ${mebibytes(m.rss)} |`);
  const lines = [
    runLine(SCRIPT, load, `within \`npm run soak\`, SOAK_MINUTES=${SOAK_MINUTES}; \`npm run bench\` keeps this section without re-running it`),
    `The service with the testbed config; the driver is one Node process on the same machine (fetch, keep-alive). The mix, in turn: a \`platform-api\` webhook post,`,
    `\`POST /wiki/search\` as anna with her groups, a WebDAV GET of a 4 KiB page, a WebDAV PUT of a 4 KiB page with the ETag of its previous write in If-Match`,
    `(${PUT_PAGES} pages; PUTs of one page one after the other), \`GET /wiki/roots\`. An error is any other answer than the expected 200 (2xx with an ETag for PUT, not \`degraded\` for search) or a broken connection.`,
    `Maximum throughput: ${WORKERS} workers, each sending its next request when the previous one is answered, ${MAX_S} s after a ${MAX_WARMUP_S} s warm-up:`,
    `${max.rps.toFixed(0)} req/s (${max.outcomes.length} requests, errors: ${failureKinds(maxFailures)}). The soak sends half that, ${(max.rps / 2).toFixed(0)} req/s, on a fixed schedule`,
    `(open loop: a late answer does not delay the next request) for a ${WARMUP_S} s warm-up and ${SOAK_MINUTES} minutes; RSS (all threads of the service process) sampled every second, the mean per minute.`,
    '',
    '| minute | requests | errors | p99 ms | RSS MiB |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    '',
    `Errors: ${errors} of ${requests} requests (target 0): ${verdict(errors === 0)}. By kind: ${failureKinds(failures)}.`,
    `RSS: last minute ${mebibytes(last.rss)} MiB vs first minute after the warm-up ${mebibytes(first.rss)} MiB, ${(growth * 100).toFixed(1)} % (target ≤ ${RSS_GROWTH_LIMIT * 100} %): ${verdict(growth <= RSS_GROWTH_LIMIT)}.`,
    `p99 stable, i.e. no minute's p99 above ${P99_LIMIT} × the median minute's: worst ${worstP99.toFixed(1)} ms vs median ${typicalP99.toFixed(1)} ms (${(worstP99 / typicalP99).toFixed(2)} ×): ${verdict(worstP99 <= P99_LIMIT * typicalP99)}.`,
    `The warm-up (${warmup!.requests} requests) counts for errors only.`,
    '',
  ];
  const none = { peer: '–', ratio: '–' };
  return report(SOAK_HEADING, lines, [
    { figure: 'errors during the soak', service: `${errors} of ${requests}`, ...none, target: '0', met: errors === 0 },
    { figure: 'RSS growth, last vs first minute', service: `${(growth * 100).toFixed(1)} %`, ...none, target: `≤ ${RSS_GROWTH_LIMIT * 100} %`, met: growth <= RSS_GROWTH_LIMIT },
    { figure: 'worst minute p99 vs median minute', service: `${(worstP99 / typicalP99).toFixed(2)} ×`, ...none, target: `≤ ${P99_LIMIT} ×`, met: worstP99 <= P99_LIMIT * typicalP99 },
  ]);
}

export const soakBench: Benchmark = { name: 'soak', script: SCRIPT, run };

await runAlone(import.meta.url, soakBench);
