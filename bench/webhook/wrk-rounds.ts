/**
 * The webhook benchmarks' measurement: wrk with bench/webhook/webhook.lua against one target, the answers that were
 * not the target's, and the server's CPU time per request from /proc; rounds interleaving the targets after a
 * warm-up each. Used by bench/webhook/run.ts (one proxy next to bare servers) and bench/several-proxies/run.ts.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Unexpected } from '../results.js';
import { processCpuSeconds } from '../stats.js';

const DURATION_S = 4;
export const ROUNDS = 3;
export const WRK_ARGS = ['-t1', '-c50', `-d${DURATION_S}s`, '--latency'];
export const WARMUP_ARGS = ['-t1', '-c50', '-d2s'];
const LUA = fileURLToPath(new URL('../../../bench/webhook/webhook.lua', import.meta.url));
/** webhook.lua with every answer's status counted: for the targets that are to answer other than 2xx. */
const LUA_STATUSES = fileURLToPath(new URL('../../../bench/webhook/statuses.lua', import.meta.url));
export const AGENT = 'service-eventhandler/1.0';

export interface Target {
  name: string;
  /**
   * The answer every request is to get; any other is unexpected. A 409 target's first request may be accepted
   * (200): the dedupe ring has forgotten its id once other targets' events pushed it out.
   */
  expect: 200 | 401 | 409;
  url: string;
  luaArgs: string[];
  /** The processes that serve it (the service; a balancer, Elasticsearch), whose CPU time per request is measured together. */
  pids: number[];
}

export interface Measurement {
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
export async function wrk(args: string[], target: Target): Promise<string> {
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

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!match) throw new Error(`unexpected wrk latency ${value}`);
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

export async function measure(target: Target): Promise<Measurement> {
  const cpuOfAll = () => target.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  const cpuBefore = cpuOfAll();
  const output = await wrk(WRK_ARGS, target);
  const cpu = cpuOfAll() - cpuBefore;
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

/** The round with the median req/s. */
export function median<Round extends { rps: number }>(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

/** The unexpected answers of all rounds of a target (the warm-up left out). */
export const unexpectedIn = (rounds: { unexpected: Unexpected }[]): Unexpected => rounds.reduce((all, m) => all.with(m.unexpected), new Unexpected());

/** Warms every target up, then measures ROUNDS rounds interleaving the targets (so that load from elsewhere on the machine hits all of them alike); per target its rounds. */
export async function measureRounds(targets: readonly Target[]): Promise<Measurement[][]> {
  for (const target of targets) await wrk(WARMUP_ARGS, target);
  const results: Measurement[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      const m = await measure(target);
      (results[i] ??= []).push(m);
      console.log(`round ${round} ${target.name}: ${m.rps.toFixed(0)} req/s, ${m.cpuUsPerRequest.toFixed(1)} µs CPU/request`);
    }
  }
  return results;
}
