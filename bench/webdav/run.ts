/**
 * WebDAV benchmark on the testbed: the service with one http-front thread and with two sharing the port, and
 * `rclone serve webdav` (SMB backend, same share, same user, `--dir-cache-time 0` so that all read fresh metadata)
 * side by side, in one run:
 *   GET of a 4 KiB page, PUT of a 4 KiB page with If-Match (each worker overwrites its own page and sends the ETag
 *   of its current version: from its previous PUT's answer, else read with a HEAD), MOVE and COPY over an existing
 *   4 KiB page with `Overwrite: T` (each worker has its own source and destination; COPY copies over its destination
 *   again and again, a MOVE worker writes its source anew over SMB before each MOVE), PROPFIND Depth 1 on a folder of
 *   1,000 files.
 * Only the answers each operation asks for count as throughput; every other answer is unexpected and leaves the
 * figure unmet (bench/results.ts, judged()).
 *   node dist/bench/webdav/run.js
 * Needs rclone on PATH and the testbed up. Prints a table and writes it under "## WebDAV" in bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { SmbClient, type SmbShare } from '../../src/smb/index.js';
import { freePort } from '../../test/support/ports.js';
import { startService, waitFor } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { percentile, segmentsSent } from '../stats.js';
import { send, sendOrBreak, type Answer, type DavOrigin } from './requests.js';
import { loadAverage, ratioRow, runAlone, runLine, report, Unexpected, verdictLine, type BenchReport, type Benchmark, type SummaryRow } from '../results.js';

const HEADING = '## WebDAV';
const USER = 'anna';
const LISTING_SIZE = 1000;
const PAGE = randomBytes(2048).toString('hex'); // 4 KiB of text
/** An ETag no version of a page has: a PUT with it in If-Match must be refused (412) by a server that honours If-Match. */
const STALE_ETAG = '"not-the-current-version"';

type OpName = 'GET' | 'PUT' | 'MOVE' | 'COPY' | 'PROPFIND';

interface Op {
  name: OpName;
  target: string;
  /** Requests in flight. */
  concurrency: number;
  /** How long to keep sending; each worker also finishes at least one request. */
  seconds: number;
  /** PROPFIND's Depth header (1 measured; 0 to warm up, as rclone needs minutes for one Depth 1 request). */
  depth?: '0' | '1';
}

interface Result {
  /** Every request of the operation sent, answered as asked or not (what a worker does before one, prepare(), not counted). */
  requests: number;
  /** Answers other than the one the operation asks for, by status (0: the connection broke). */
  unexpected: Unexpected;
  /** Answers as asked per second, and their latencies: an error is no throughput. */
  rps: number;
  p50: number;
  p99: number;
}

interface Server extends DavOrigin {
  name: string;
  /** Names the files its workers replace: each server has its own, so that one's failures cannot spoil another's files. */
  key: string;
  /**
   * What the server answers a PUT that replaces a file: 204 (RFC 4918, 9.7.1); rclone (golang.org/x/net/webdav)
   * answers 201 to every PUT that succeeds.
   */
  overwritten: number;
}

/**
 * The answer each operation asks for. MOVE and COPY replace an existing destination: 204 (RFC 4918, 9.8.5, 9.9.4),
 * which rclone answers too (golang.org/x/net/webdav: 201 only when the destination was created).
 */
function expected(op: Op, server: Server): number {
  return { GET: 200, PUT: server.overwritten, MOVE: 204, COPY: 204, PROPFIND: 207 }[op.name];
}

type Role = 'from' | 'to';

/**
 * A file of one worker of `op` on one server: the page a PUT overwrites (`to`), a MOVE's or COPY's source and
 * destination. Each worker has its own, so that workers do not wait for each other's opens.
 */
const workerFile = (dir: string, server: Server, op: OpName, worker: number, role: Role): string => `${dir}/${op.toLowerCase()}-${server.key}-${worker}-${role}.md`;

/** The files that stand before the first round, so that every PUT, MOVE and COPY replaces one. */
const MADE_BEFORE: Partial<Record<OpName, Role[]>> = { PUT: ['to'], MOVE: ['to'], COPY: ['from', 'to'] };

/** A worker's next request: `prepare()` first, whose time counts in the round's but not in the request's, then `send()`. */
interface Requests {
  prepare(): Promise<void>;
  send(): Promise<Answer>;
}

/**
 * What a worker of `op` sends to `server`. A PUT worker sends the ETag of its page's current version in If-Match: the
 * one its previous PUT answered with, else (none given, or the PUT failed) the one a HEAD reads first. A COPY worker
 * copies its source over its destination, again and again. A MOVE takes its source away, so a MOVE worker first writes
 * it anew, over SMB from the driver: the same for every server, and none of it a server's work (a write that fails is
 * unexpected); the destination is what the previous MOVE left (or was made before the first round).
 */
function workerRequests(server: Server, op: Op, w: number, agent: Agent, share: SmbShare, dir: string, unexpected: Unexpected): Requests {
  const nothing = async () => undefined;
  const file = (role: Role) => workerFile(dir, server, op.name, w, role);
  const replace = () => sendOrBreak(server, agent, op.name, file('from'), { destination: `${server.base}${file('to')}`, overwrite: 'T' });
  switch (op.name) {
    case 'GET':
      return { prepare: nothing, send: () => sendOrBreak(server, agent, 'GET', `${dir}/page.md`, {}) };
    case 'PROPFIND':
      return { prepare: nothing, send: () => sendOrBreak(server, agent, 'PROPFIND', `${dir}/list/`, { depth: op.depth ?? '1' }) };
    case 'COPY':
      return { prepare: nothing, send: replace };
    case 'MOVE':
      return {
        prepare: async () => {
          await share.writeFile(file('from'), PAGE).catch(() => unexpected.add(server.name, 'source not written'));
        },
        send: replace,
      };
    case 'PUT': {
      let etag: string | undefined;
      return {
        prepare: async () => {
          if (etag !== undefined) return;
          // The page exists unless a failed PUT of this server lost it (rclone removes what it could not write).
          const head = await sendOrBreak(server, agent, 'HEAD', file('to'), {});
          if (head.status !== 200) unexpected.add(server.name, `HEAD ${head.status}`);
          etag = head.etag;
        },
        send: async () => {
          const res = await sendOrBreak(server, agent, 'PUT', file('to'), etag === undefined ? {} : { 'if-match': etag }, PAGE);
          etag = res.status === expected(op, server) ? res.etag : undefined;
          return res;
        },
      };
    }
  }
}

/** Runs `op` against a server: each worker sends one request after the other (workerRequests). */
async function measure(server: Server, op: Op, share: SmbShare, dir: string): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: op.concurrency });
  const latencies: number[] = [];
  let requests = 0;
  const unexpected = new Unexpected();
  const ok = expected(op, server);
  const started = performance.now();
  const deadline = started + op.seconds * 1000;
  const worker = async (w: number) => {
    const next = workerRequests(server, op, w, agent, share, dir, unexpected);
    do {
      await next.prepare();
      const t = performance.now();
      requests++;
      const res = await next.send();
      if (res.status === ok) latencies.push(performance.now() - t);
      else unexpected.add(server.name, res.status);
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: op.concurrency }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests, unexpected, rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/** What a server answers a PUT whose If-Match names no current version (412 when it honours the header). */
async function staleIfMatch(server: Server, dir: string): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  const { status } = await sendOrBreak(server, agent, 'PUT', workerFile(dir, server, 'PUT', 0, 'to'), { 'if-match': STALE_ETAG }, PAGE);
  agent.destroy();
  return status;
}

/** Saves made one at a time to count what one costs on the SMB side. */
const COUNTED_SAVES = 50;
const SMB_PORT = 445;

/**
 * The SMB messages the service process sends per save (a PUT with the current ETag in If-Match), saves made one at
 * a time, counted as TCP segments to the SMB port over all its connections: what its threads do because of the save
 * (the reconciler's change watch, say) counts too. A HEAD that reads the ETag when an answer has none is left out.
 */
async function smbMessagesPerSave(server: Server, pid: number, dir: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const page = workerFile(dir, server, 'PUT', 0, 'to');
  const head = async () => {
    const before = segmentsSent(pid, SMB_PORT);
    const { etag } = await send(server, agent, 'HEAD', page, {});
    return { etag, segments: segmentsSent(pid, SMB_PORT) - before };
  };
  let { etag } = await head();
  let headSegments = 0;
  const before = segmentsSent(pid, SMB_PORT);
  for (let i = 0; i < COUNTED_SAVES; i++) {
    const res = await send(server, agent, 'PUT', page, etag === undefined ? {} : { 'if-match': etag }, PAGE);
    if (res.etag === undefined) {
      const read = await head();
      headSegments += read.segments;
      etag = read.etag;
    } else etag = res.etag;
  }
  // What a save starts after its answer (a close, the watch's next request) has a moment to go out.
  await new Promise((resolve) => setTimeout(resolve, 500));
  agent.destroy();
  return (segmentsSent(pid, SMB_PORT) - before - headSegments) / COUNTED_SAVES;
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

/**
 * Operations measured, each against every server; rclone needs minutes for one PROPFIND of the big folder (it stats
 * every member anew), hence one round there. MOVE and COPY over a file aim at not slower than rclone (≥ 1 ×), not at
 * PUT's 2 ×: the service asks the file server for the right to delete the destination first and never deletes it
 * before its replacement stands (a COPY writes a whole copy beside it, then renames), where rclone deletes the
 * destination and then moves or writes (issue 40: what loses the destination when the second step fails); and a MOVE
 * round also holds the driver's writes of the sources, the same for every server, which brings any ratio nearer 1.
 */
const OPS: (Op & { goal: number; rounds: number })[] = [
  { name: 'GET', target: 'GET of a 4 KiB page', concurrency: 8, seconds: 5, goal: 2, rounds: 3 },
  { name: 'PUT', target: 'PUT of a 4 KiB page with If-Match', concurrency: 8, seconds: 5, goal: 2, rounds: 3 },
  { name: 'MOVE', target: 'MOVE over an existing 4 KiB file (Overwrite: T)', concurrency: 8, seconds: 5, goal: 1, rounds: 3 },
  { name: 'COPY', target: 'COPY over an existing 4 KiB file (Overwrite: T)', concurrency: 8, seconds: 5, goal: 1, rounds: 3 },
  { name: 'PROPFIND', target: `PROPFIND Depth 1 on ${LISTING_SIZE} files`, concurrency: 2, seconds: 5, goal: 1.5, rounds: 1 },
];

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
  const basic = { authorization: `Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}` };
  const servers: Server[] = [
    { name: 'edu-fileproxy', key: 'fileproxy', base: `${service.url}/dav/schule/`, headers: basic, overwritten: 204 },
    { name: 'edu-fileproxy, 2 http-fronts', key: 'two-fronts', base: `${twoFronts.url}/dav/schule/`, headers: basic, overwritten: 204 },
    { name: 'rclone serve webdav', key: 'rclone', base: `http://127.0.0.1:${rclonePort}/`, headers: {}, overwritten: 201 },
  ];
  const load = loadAverage();
  const rows: string[] = [];
  const summary: SummaryRow[] = [];
  const stale: string[] = [];
  let perSave = NaN;
  try {
    const rcloneServer = servers[servers.length - 1]!;
    await waitFor(async () => (await fetch(`${rcloneServer.base}${dir}/page.md`)).status === 200, 15_000);
    const made = servers.flatMap((server) => OPS.flatMap((op) =>
      Array.from({ length: op.concurrency }, (_, w) => (MADE_BEFORE[op.name] ?? []).map((role) => workerFile(dir, server, op.name, w, role))).flat()));
    await Promise.all(made.map((file) => share.writeFile(file, PAGE)));
    for (const op of OPS) {
      // Rounds alternate the servers, so that changing load on the machine hits all alike; per service, the round with
      // its median ratio to rclone counts.
      const rounds: Result[][] = [];
      for (const server of servers) await measure(server, { ...op, seconds: 1, concurrency: 1, depth: '0' }, share, dir); // warm-up
      for (let round = 0; round < op.rounds; round++) {
        const results: Result[] = [];
        for (const server of servers) {
          const r = await measure(server, op, share, dir);
          results.push(r);
          process.stdout.write(`${op.name} ${server.name}: ${r.requests} requests, ${format(r.rps)} req/s answered as asked, p50 ${format(r.p50)} ms, p99 ${format(r.p99)} ms, unexpected ${r.unexpected}\n`);
        }
        rounds.push(results);
      }
      const rclone = servers.length - 1;
      // A figure stands for every round of its service and of rclone: an error in any of them leaves it unmet.
      const unexpectedOf = (i: number) => rounds.reduce((all, results) => all.with(results[i]!.unexpected), new Unexpected());
      servers.forEach((server, i) => {
        const ratioOf = (results: Result[]) => results[i]!.rps / results[rclone]!.rps;
        const median = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(rounds.length / 2)]!;
        const r = median[i]!;
        const ratioCell = i === rclone ? '1.00 ×' : `${format(ratioOf(median), 2)} × (rounds: ${rounds.map((x) => format(ratioOf(x), 2)).join(', ')})`;
        const unexpected = unexpectedOf(i);
        rows.push(`| ${op.target} | ${server.name} | ${op.concurrency} | ${r.requests} | ${unexpected.total === 0 ? 0 : `${unexpected.total} (${unexpected})`} | ${format(r.rps)} | ${format(r.p50, 2)} | ${format(r.p99, 2)} | ${ratioCell} |`);
        if (i === rclone) return;
        summary.push(ratioRow(`${op.target}, ${server.name}, req/s`, r.rps, median[rclone]!.rps, 'rclone serve webdav', { atLeast: op.goal }, 1, unexpected.with(unexpectedOf(rclone))));
      });
    }
    for (const server of servers) stale.push(`${server.name} ${await staleIfMatch(server, dir)}`);
    perSave = await smbMessagesPerSave(servers[0]!, service.process.pid!, dir);
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
    'one Depth 1 request takes rclone minutes). GET, PUT, MOVE and COPY run 3 rounds alternating the servers; the table shows',
    'the round with the median ratio (all ratios in brackets); PROPFIND runs one round.',
    'PUT: each worker overwrites its own 4 KiB page (one set per server, written before the first round), with the ETag of its current version in If-Match:',
    'the ETag of its previous PUT\'s answer, or one read with a HEAD (first PUT of a round, no ETag in the answer, or a failed PUT; the HEAD\'s time counts in the',
    'round\'s, not in the PUT\'s; a HEAD that does not find the page is unexpected, and the PUT then goes without If-Match).',
    'MOVE and COPY (`Overwrite: T`): each worker has its own 4 KiB source and destination (one set per server, written before the first round), and every',
    'request replaces its destination. A COPY worker copies its source over its destination again and again; a MOVE worker writes its source anew over',
    'SMB from the driver before each MOVE (the same for every server; its time counts in the round\'s, not in the MOVE\'s; a write that fails is',
    'unexpected), and moves it over the destination the previous MOVE left.',
    `A PUT with an ETag of no version in If-Match was answered: ${stale.join('; ')} (412: the header is honoured; rclone ignores If-Match and overwrites).`,
    'Only the answers an operation asks for count as requests per second and latency: GET 200, PROPFIND 207, PUT 204 (rclone 201, which its',
    'golang.org/x/net/webdav handler answers to every PUT that succeeds), MOVE and COPY 204 (a destination replaced, RFC 4918; rclone answers the same).',
    'Every other answer (0: the connection broke) is unexpected, in all rounds',
    'of the server (the warm-up left out); a figure is met only when its ratio is and neither the service nor rclone had an unexpected answer.',
    `SMB cost of a save on the service's side: ${format(perSave)} SMB messages sent by the service process per save (${COUNTED_SAVES} saves one at a time through`,
    'the one-front service, counted as TCP segments to port 445 over all its connections, from `ss -tin`).',
    'The testbed\'s shares answer writes at once (`aio write size = 0`): rclone\'s SMB client (go-smb2) refuses the unsigned interim STATUS_PENDING',
    'answer Samba otherwise sends when a write goes asynchronous (`signing required` in rclone\'s log; servers never sign interim answers, MS-SMB2',
    '3.2.5.1.3), and its handler then answers 405 and removes the file it could not write: 98 of its PUTs in a run here before the setting.',
    '',
    '| operation | server | in flight | requests | unexpected answers (all rounds) | req/s answered as asked | p50 ms | p99 ms | × rclone |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    ...summary.map(verdictLine),
    '',
  ];
  return report(HEADING, lines, summary);
}

const SCRIPT = 'dist/bench/webdav/run.js';
export const webdavBench: Benchmark = { name: 'webdav', script: SCRIPT, run };

await runAlone(import.meta.url, webdavBench);
