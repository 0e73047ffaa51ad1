/**
 * WebDAV LOCK+PUT+UNLOCK round trips per second against one target (a proxy, or proxies behind a balancer): what an
 * editor does to save a page it holds locked. Each worker locks its own page (exclusive, depth 0), writes it with the
 * lock token in the If header and unlocks it, one round trip after the other, on kept-alive connections. A round
 * trip counts only when the LOCK answered 200 with a token, the PUT 204 and the UNLOCK 204; every other answer is
 * unexpected, by method and status. Behind a balancer the three requests of a round trip may reach three proxies:
 * the figure then measures locks shared across proxies, and where they are not shared its unexpected answers show it.
 */
import { Agent } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Unexpected } from '../results.js';
import { percentile, processCpuSeconds } from '../stats.js';
import { sendOrBreak, type DavOrigin } from '../webdav/requests.js';

export const CONCURRENCY = 8;
export const SECONDS = 4;
export const ROUNDS = 3;
const WARMUP_SECONDS = 1;
/**
 * The timeout each LOCK asks for: short, so that a lock a failed UNLOCK left behind (another proxy that does not
 * know it) blocks its page for seconds, not for the service's default hour.
 */
export const LOCK_SECONDS = 10;
const LOCKINFO = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>bench</D:owner></D:lockinfo>';
export const PAGE = randomBytes(2048).toString('hex'); // 4 KiB of text

export interface LockTarget extends DavOrigin {
  name: string;
  /** Names its workers' pages: each target has its own, so that one's leftover locks cannot spoil another's round trips. */
  key: string;
  /** The processes that serve it (the proxies; a balancer, Elasticsearch), whose CPU time per round trip is measured together. */
  pids: number[];
}

export interface RoundTrips {
  /** Round trips started. */
  attempted: number;
  unexpected: Unexpected;
  /** Round trips answered as asked per second, and their latencies (the three requests): an error is no throughput. */
  rps: number;
  p50ms: number;
  p99ms: number;
  /** CPU time (user + system, all threads) of the target's processes per round trip started, in µs. */
  cpuUsPerRoundTrip: number;
}

/** The page worker `w` of `target` locks and writes, under `dir` (a folder of the share the targets' base names). */
export const workerPage = (dir: string, target: LockTarget, w: number): string => `${dir}/${target.key}-${w}.md`;

/** One LOCK, PUT with its token, UNLOCK; whether every answer was the one asked for (the others are counted). */
async function roundTrip(target: LockTarget, agent: Agent, page: string, unexpected: Unexpected): Promise<boolean> {
  const lock = await sendOrBreak(target, agent, 'LOCK', page, { 'content-type': 'application/xml', depth: '0', timeout: `Second-${LOCK_SECONDS}` }, LOCKINFO);
  if (lock.status !== 200 || lock.lockToken === undefined) {
    unexpected.add(target.name, `LOCK ${lock.status}`);
    return false;
  }
  const put = await sendOrBreak(target, agent, 'PUT', page, { if: `(${lock.lockToken})` }, PAGE);
  const unlock = await sendOrBreak(target, agent, 'UNLOCK', page, { 'lock-token': lock.lockToken });
  if (put.status !== 204) unexpected.add(target.name, `PUT ${put.status}`);
  if (unlock.status !== 204) unexpected.add(target.name, `UNLOCK ${unlock.status}`);
  return put.status === 204 && unlock.status === 204;
}

/** CONCURRENCY workers making round trips for `seconds` (each finishes the one it started). */
export async function measureRoundTrips(target: LockTarget, dir: string, seconds = SECONDS): Promise<RoundTrips> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const unexpected = new Unexpected();
  const latencies: number[] = [];
  let attempted = 0;
  const cpuOfAll = () => target.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  const cpuBefore = cpuOfAll();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    do {
      const t = performance.now();
      attempted++;
      if (await roundTrip(target, agent, workerPage(dir, target, w), unexpected)) latencies.push(performance.now() - t);
    } while (performance.now() < deadline);
  }));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuOfAll() - cpuBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    attempted, unexpected, rps: latencies.length / elapsed, p50ms: percentile(latencies, 0.5), p99ms: percentile(latencies, 0.99),
    cpuUsPerRoundTrip: (cpu * 1e6) / Math.max(1, attempted),
  };
}

/** Warms every target up, then ROUNDS rounds interleaving the targets; per target its rounds. */
export async function measureLockRounds(targets: readonly LockTarget[], dir: string): Promise<RoundTrips[][]> {
  for (const target of targets) await measureRoundTrips(target, dir, WARMUP_SECONDS);
  const rounds: RoundTrips[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      const r = await measureRoundTrips(target, dir);
      rounds[i]!.push(r);
      process.stdout.write(`LOCK+PUT+UNLOCK ${target.name}: ${r.attempted} round trips, ${r.rps.toFixed(0)}/s as asked, p50 ${r.p50ms.toFixed(2)} ms, unexpected ${r.unexpected}\n`);
    }
  }
  return rounds;
}

/**
 * Whether a lock taken through `holder` stops a write without its token through `other` (423), as it does through
 * the same proxy: the status of that write. Answers 204 where each proxy keeps its own locks.
 */
export async function writeThroughOtherProxy(holder: DavOrigin, other: DavOrigin, page: string): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  try {
    const lock = await sendOrBreak(holder, agent, 'LOCK', page, { 'content-type': 'application/xml', depth: '0', timeout: `Second-${LOCK_SECONDS}` }, LOCKINFO);
    if (lock.lockToken === undefined) throw new Error(`LOCK of ${page} through ${holder.base} answered ${lock.status}`);
    const put = await sendOrBreak(other, agent, 'PUT', page, {}, PAGE);
    await sendOrBreak(holder, agent, 'UNLOCK', page, { 'lock-token': lock.lockToken });
    return put.status;
  } finally {
    agent.destroy();
  }
}
