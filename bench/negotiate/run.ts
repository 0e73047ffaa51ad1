/**
 * HTTP Negotiate on the testbed, in one run:
 *   node dist/bench/negotiate/run.js
 * What the service's one replay cache costs a Negotiate request: the acceptor (src/kerberos/acceptor.ts) checking
 * real AP-REQs of carla for HTTP/proxy.edu.test with a replay cache in its own thread, against the same with the
 * cache in another thread behind an RpcChannel (as the supervisor holds it for every http-front). Then a WebDAV GET
 * of a small file through the running service with Negotiate (a new token each time, the delegated SMB session
 * pooled) against Basic (the user's session pooled). Writes its section of bench/RESULTS.md.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { KerberosAcceptor, MAX_SKEW_SECONDS } from '../../src/kerberos/acceptor.js';
import { KerberosClient } from '../../src/kerberos/client.js';
import { initiateContext } from '../../src/kerberos/gss.js';
import { parseKeytab } from '../../src/kerberos/keytab.js';
import { acceptNegotiate } from '../../src/kerberos/negotiate.js';
import { REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT, ReplayCache, remoteReplayGuard, type ReplayGuard, type ReplayVerdict } from '../../src/kerberos/replay-cache.js';
import { KERBEROS_MECH_TYPES, negTokenInit } from '../../src/kerberos/spnego.js';
import type { SupervisorProtocol } from '../../actors/kinds.js';
import { RpcChannel } from '../../src/runtime/rpc.js';
import { startService } from '../../test/support/service.js';
import { readTestbedEnv } from '../../test/testbed/env.js';
import { delegationAccount, ensureDelegationAccounts, exportKeytab, kdcSettings, kerberosConfig } from '../../test/testbed/kerberos.js';
import { isMain, loadAverage, ratioRow, report, runAlone, runLine, type BenchReport, type Benchmark } from '../results.js';
import { percentile } from '../stats.js';

const HEADING = '## HTTP Negotiate: the replay cache and a WebDAV GET';
const ACCEPTS = 2000;
const GETS = 200;
const SCRIPT = 'dist/bench/negotiate/run.js';

const NOTE = 'The first two rows are what the service\'s one replay cache (in the supervisor) costs an acceptance: one round trip between threads. '
  + 'A GET with Negotiate does per request what one with Basic does once per pooled session: the acceptor decrypts the ticket and the authenticator '
  + '(AES) and decodes the ticket with its PAC (about a kilobyte of DER), and the client makes a new token; both ran on this host.';

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);

/** Microseconds of each acceptance of `headers[i]` (all fresh authenticators) with `replays`. */
async function acceptTimes(keytab: Buffer, replays: ReplayGuard, headers: string[]): Promise<number[]> {
  const acceptor = new KerberosAcceptor({ service: delegationAccount.spn, realm: kerberosConfig.realm, keytab: parseKeytab(keytab), maxSkewSeconds: MAX_SKEW_SECONDS, replays });
  const times: number[] = [];
  for (const header of headers) {
    const start = performance.now();
    await acceptNegotiate(acceptor, header);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const env = await readTestbedEnv();
  await ensureDelegationAccounts();
  const dir = await mkdtemp(join(tmpdir(), 'bench-negotiate-'));
  const keytabFile = join(dir, 'proxy.keytab');
  await exportKeytab(delegationAccount.user, keytabFile);
  await exportKeytab(delegationAccount.spn, keytabFile);
  const keytab = await readFile(keytabFile);
  const carla = new KerberosClient(kdcSettings(), 'carla', { password: env.users['carla']!.password }, { forwardable: true });
  const ticket = await carla.serviceTicket(delegationAccount.spn);
  // Each token a new authenticator (its time one millisecond apart), as a client makes one per request.
  const base = Date.now() - 2 * ACCEPTS;
  const header = (i: number) => `Negotiate ${negTokenInit(initiateContext(ticket, new Date(base + i)).token, KERBEROS_MECH_TYPES).toString('base64')}`;
  const headers = Array.from({ length: 4 * ACCEPTS }, (_, i) => header(i));

  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./replay-worker.js', import.meta.url), {
    workerData: { port: port2, skewMs: MAX_SKEW_SECONDS * 1000 }, transferList: [port2],
  });
  const channel = new RpcChannel(port1, 'replay-worker', undefined);
  const supervisor = channel.remote<Pick<SupervisorProtocol, 'admitAuthenticator'>>();
  const remote = remoteReplayGuard((...seen): Promise<ReplayVerdict> => supervisor.admitAuthenticator(...seen));
  const local = new ReplayCache(MAX_SKEW_SECONDS * 1000, REPLAY_CACHE_ENTRIES, REPLAY_CACHE_PER_CLIENT);
  // Interleaved halves, so that a busy spell of the shared host hits both alike; the first of each warms up.
  const inThread: number[] = [];
  const overChannel: number[] = [];
  for (let round = 0; round < 4; round++) {
    const slice = headers.slice(round * ACCEPTS, (round + 1) * ACCEPTS);
    const half = ACCEPTS / 2;
    const a = await acceptTimes(keytab, local, slice.slice(0, half));
    const b = await acceptTimes(keytab, remote, slice.slice(half));
    if (round > 0) {
      inThread.push(...a);
      overChannel.push(...b);
    }
  }
  await worker.terminate();

  // End to end: the service with two fronts; Basic and Negotiate GETs interleaved in rounds.
  const service = await startService({
    kerberos: { ...kerberosConfig, delegation: { account: delegationAccount.user, keytab_file: keytabFile, http_spn: delegationAccount.spn } },
    workers: { http_front: 2 },
  });
  const url = `${service.url}/dav/schule/Aushang.txt`;
  const basic = `Basic ${Buffer.from(`carla:${env.users['carla']!.password}`).toString('base64')}`;
  const timeGet = async (authorization: string): Promise<number> => {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
    return performance.now() - start;
  };
  const getBasic: number[] = [];
  const getNegotiate: number[] = [];
  try {
    await timeGet(basic);
    await timeGet(`Negotiate ${negTokenInit(initiateContext(ticket).token, KERBEROS_MECH_TYPES).toString('base64')}`);
    for (let i = 0; i < GETS; i++) {
      getBasic.push(await timeGet(basic));
      getNegotiate.push(await timeGet(`Negotiate ${negTokenInit(initiateContext(ticket).token, KERBEROS_MECH_TYPES).toString('base64')}`));
    }
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }

  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    runLine(SCRIPT, load),
    `Testbed: carla's ticket for ${delegationAccount.spn} from the DC's KDC (aes256-cts-hmac-sha1-96), the keys of svc-proxy's keytab. `
      + `${3 * ACCEPTS / 2} acceptances of fresh tokens of each kind after a warm-up round, interleaved; ${GETS} GETs of each kind, alternating, one connection each way (fetch keeps it alive).`,
    '',
    line(['what', 'median', 'p90', 'x peer (median)']),
    '|---|---:|---:|---:|',
    line(['accept a Negotiate token, replay cache in the same thread, µs', median(inThread).toFixed(1), percentile([...inThread].sort((a, b) => a - b), 0.9).toFixed(1), '1.00']),
    line(['accept a Negotiate token, replay cache in another thread over an RpcChannel (as in the service), µs', median(overChannel).toFixed(1), percentile([...overChannel].sort((a, b) => a - b), 0.9).toFixed(1), (median(overChannel) / median(inThread)).toFixed(2)]),
    line(['WebDAV GET of Aushang.txt with Basic (pooled session), ms', median(getBasic).toFixed(2), percentile([...getBasic].sort((a, b) => a - b), 0.9).toFixed(2), '1.00']),
    line(['WebDAV GET of Aushang.txt with Negotiate (a new token each, pooled delegated session), ms', median(getNegotiate).toFixed(2), percentile([...getNegotiate].sort((a, b) => a - b), 0.9).toFixed(2), (median(getNegotiate) / median(getBasic)).toFixed(2)]),
    '',
    NOTE,
    '',
  ];
  return report(HEADING, lines, [
    ratioRow('accept a Negotiate token, µs, replay cache across threads', median(overChannel), median(inThread), 'cache in the thread', { atMost: 2 }, 1),
    ratioRow('WebDAV GET with Negotiate, median ms', median(getNegotiate), median(getBasic), 'Basic', { atMost: 1.5 }, 2),
  ]);
}

export const negotiateBench: Benchmark = { name: 'negotiate', script: SCRIPT, run };

if (isMain(import.meta.url)) await runAlone(import.meta.url, negotiateBench);
