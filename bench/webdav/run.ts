/**
 * WebDAV benchmark on the testbed: the service with one http-front thread and with two sharing the port, and
 * `rclone serve webdav` (SMB backend, same share, same user, `--dir-cache-time 0` so that all read fresh metadata)
 * side by side, in one run:
 *   GET of a 4 KiB page, PUT of a 4 KiB page with If-Match (each worker keeps its own page and sends the ETag of
 *   its previous write), PROPFIND Depth 1 on a folder of 1,000 files.
 *   node dist/bench/webdav/run.js
 * Needs rclone on PATH and the testbed up. Prints a table and writes it under "## WebDAV" in bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { freePort } from '../../test/support/ports.js';
import { startService, waitFor } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { percentile } from '../stats.js';
import { loadAverage, ratioRow, runAlone, runLine, verdict, report, type BenchReport, type Benchmark, type SummaryRow } from '../results.js';

const HEADING = '## WebDAV';
const USER = 'anna';
const LISTING_SIZE = 1000;
const PAGE = randomBytes(2048).toString('hex'); // 4 KiB of text

interface Op {
  name: string;
  target: string;
  /** Requests in flight. */
  concurrency: number;
  /** How long to keep sending; each worker also finishes at least one request. */
  seconds: number;
  /** PROPFIND's Depth header (1 measured; 0 to warm up, as rclone needs minutes for one Depth 1 request). */
  depth?: '0' | '1';
}

interface Result {
  requests: number;
  failures: number;
  /** Status codes of the failures, e.g. `412 ×30`. */
  failed: string;
  rps: number;
  p50: number;
  p99: number;
}

interface Server {
  name: string;
  base: string;
  headers: Record<string, string>;
}

function send(server: Server, agent: Agent, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.base}${path}`, { method, agent, headers: { ...server.headers, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `op` against a server: each worker sends one request after the other; latencies of all requests. */
async function measure(server: Server, op: Op, dir: string): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: op.concurrency });
  const latencies: number[] = [];
  const failed = new Map<number, number>();
  const started = performance.now();
  const deadline = started + op.seconds * 1000;
  const worker = async (w: number) => {
    let etag: string | undefined;
    const page = `${dir}/put-${w}.md`;
    do {
      const t = performance.now();
      // A connection that breaks counts as a failure with status 0.
      const res = await (op.name === 'GET'
        ? send(server, agent, 'GET', `${dir}/page.md`, {})
        : op.name === 'PUT'
          ? send(server, agent, 'PUT', page, etag ? { 'if-match': etag } : {}, PAGE)
          : send(server, agent, 'PROPFIND', `${dir}/list/`, { depth: op.depth ?? '1' })
      ).catch(() => ({ status: 0, etag: undefined }));
      latencies.push(performance.now() - t);
      if (res.status >= 300 || res.status === 0) failed.set(res.status, (failed.get(res.status) ?? 0) + 1);
      etag = res.etag;
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: op.concurrency }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const failures = [...failed.values()].reduce((a, b) => a + b, 0);
  const statuses = [...failed].map(([status, n]) => `${status} ×${n}`).join(', ');
  return { requests: latencies.length, failures, failed: statuses, rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function fixture(share: SmbShare, dir: string): Promise<void> {
  await share.mkdir(`${dir}/list`, { recursive: true });
  await share.writeFile(`${dir}/page.md`, PAGE);
  const names = Array.from({ length: LISTING_SIZE }, (_, i) => `${dir}/list/datei-${String(i).padStart(4, '0')}.md`);
  for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((n) => share.writeFile(n, '# Seite\n')));
}

async function removeTree(share: SmbShare, dir: string): Promise<void> {
  const folders: string[] = [];
  for await (const e of share.walk(dir)) {
    if (e.isDirectory) folders.push(e.path);
    else await share.unlink(e.path);
  }
  for (const f of folders.sort((a, b) => b.length - a.length)) await share.rmdir(f);
  await share.rmdir(dir);
}

function format(n: number, digits = 1): string {
  return n.toFixed(digits);
}

async function run(): Promise<BenchReport> {
  const env = await readTestbedEnv();
  const password = env.users[USER]!.password;
  const client = new SmbClient();
  const share = client.share({ host: env.smb.host, port: env.smb.port, domain: env.smb.domain, user: USER, password, share: 'schule' });
  const dir = `_davbench-${randomBytes(4).toString('hex')}`;
  await fixture(share, dir);

  const service = await startService({ workers: { http_front: 1 } });
  const twoFronts = await startService({ workers: { http_front: 2 } });
  const rclonePort = await freePort();
  const obscured = execFileSync('rclone', ['obscure', password], { encoding: 'utf8' }).trim();
  const rclone = spawn('rclone', [
    'serve', 'webdav', ':smb:schule', '--addr', `127.0.0.1:${rclonePort}`, '--dir-cache-time', '0',
    '--smb-host', env.smb.host, '--smb-user', USER, '--smb-pass', obscured, '--smb-domain', env.smb.domain,
  ], { stdio: 'ignore' });
  const servers: Server[] = [
    { name: 'edu-fileproxy', base: `${service.url}/dav/schule/`, headers: { authorization: `Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}` } },
    { name: 'edu-fileproxy, 2 http-fronts', base: `${twoFronts.url}/dav/schule/`, headers: { authorization: `Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}` } },
    { name: 'rclone serve webdav', base: `http://127.0.0.1:${rclonePort}/`, headers: {} },
  ];
  const load = loadAverage();
  const rows: string[] = [];
  const verdicts: string[] = [];
  const summary: SummaryRow[] = [];
  try {
    const rcloneServer = servers[servers.length - 1]!;
    await waitFor(async () => (await fetch(`${rcloneServer.base}${dir}/page.md`)).status === 200, 15_000);
    // rclone needs minutes for one PROPFIND of the big folder (it stats every member anew), hence one round there.
    const ops: (Op & { goal: number; rounds: number })[] = [
      { name: 'GET', target: 'GET of a 4 KiB page', concurrency: 8, seconds: 5, goal: 2, rounds: 3 },
      { name: 'PUT', target: 'PUT of a 4 KiB page with If-Match', concurrency: 8, seconds: 5, goal: 2, rounds: 3 },
      { name: 'PROPFIND', target: `PROPFIND Depth 1 on ${LISTING_SIZE} files`, concurrency: 2, seconds: 5, goal: 1.5, rounds: 1 },
    ];
    for (const op of ops) {
      // Rounds alternate the servers, so that changing load on the machine hits all alike; per service, the round with
      // its median ratio to rclone counts.
      const rounds: Result[][] = [];
      for (const server of servers) await measure(server, { ...op, seconds: 1, concurrency: 1, depth: '0' }, dir); // warm-up
      for (let round = 0; round < op.rounds; round++) {
        const results: Result[] = [];
        for (const server of servers) {
          const r = await measure(server, op, dir);
          results.push(r);
          process.stdout.write(`${op.name} ${server.name}: ${r.requests} requests, ${format(r.rps)} req/s, p50 ${format(r.p50)} ms, p99 ${format(r.p99)} ms, ${r.failures} failures ${r.failed}\n`);
        }
        rounds.push(results);
      }
      servers.forEach((server, i) => {
        const rclone = servers.length - 1;
        const ratioOf = (results: Result[]) => results[i]!.rps / results[rclone]!.rps;
        const median = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(rounds.length / 2)]!;
        const r = median[i]!;
        const ratio = ratioOf(median);
        const ratioCell = i === rclone ? '1.00 ×' : `${format(ratio, 2)} × (rounds: ${rounds.map((x) => format(ratioOf(x), 2)).join(', ')})`;
        rows.push(`| ${op.target} | ${server.name} | ${op.concurrency} | ${r.requests} | ${r.failures ? `${r.failures} (${r.failed})` : 0} | ${format(r.rps)} | ${format(r.p50, 2)} | ${format(r.p99, 2)} | ${ratioCell} |`);
        if (i === rclone) return;
        verdicts.push(`${op.target}, ${server.name}: ${format(ratio, 2)} × rclone, target ≥ ${op.goal} × ${verdict(ratio >= op.goal)}.`);
        summary.push(ratioRow(`${op.target}, ${server.name}, req/s`, r.rps, median[rclone]!.rps, 'rclone serve webdav', { atLeast: op.goal }, 1));
      });
    }
  } finally {
    rclone.kill();
    await Promise.all([service.stop(), twoFronts.stop()]);
    await removeTree(share, dir);
    await client.close();
  }

  const lines = [
    runLine(SCRIPT, load),
    `All servers read the share \`schule\` of the testbed DC (Samba, SMB 3.1.1, signing required) as \`${USER}\`: the service on Node ${process.version} with the testbed config, with one`,
    'http-front thread and with two sharing the port (node:http, reusePort),',
    '`rclone serve webdav :smb:schule --dir-cache-time 0` (rclone 1.60, SMB backend) without HTTP authentication of its own.',
    'The driver is one Node process on the same machine with keep-alive connections; each worker sends its next request when the previous one is answered,',
    'for 5 s after a 1 s warm-up (a PROPFIND worker finishes the request it started; the PROPFIND warm-up asks Depth 0 of the same folder, since',
    'one Depth 1 request takes rclone minutes). GET and PUT run 3 rounds alternating the servers; the table shows',
    'the round with the median ratio (all ratios in brackets); PROPFIND runs one round. PUT: each worker writes its own 4 KiB page, with the ETag of its',
    'previous write in If-Match. Failures are answers ≥ 300, with their status codes (0: the connection broke).',
    '',
    '| operation | server | in flight | requests | failures | req/s | p50 ms | p99 ms | × rclone |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    ...verdicts,
    '',
  ];
  return report(HEADING, lines, summary);
}

const SCRIPT = 'dist/bench/webdav/run.js';
export const webdavBench: Benchmark = { name: 'webdav', script: SCRIPT, run };

await runAlone(import.meta.url, webdavBench);
