/**
 * SMB session setup with Kerberos against NTLM on the testbed, in one run:
 *   node dist/bench/smb/session-setup.js
 * Times a new connection and session as anna with NTLM, with Kerberos holding its cifs/ ticket already (the usual
 * case: tickets are cached for hours), and with Kerberos from nothing (a fresh client: AS twice, TGS, then the
 * session); then operations on an established session of each kind, which must not differ (the logon only
 * chooses the session key). Writes its table under "## SMB session setup: Kerberos and NTLM" in bench/RESULTS.md.
 */
import { KerberosClient } from '../../src/kerberos/client.js';
import { SmbClient, type Credentials } from '../../src/smb/index.js';
import { Connection } from '../../src/smb/connection.js';
import { Session } from '../../src/smb/session.js';
import { env } from '../../test/integration/smb/testbed.js';
import { fileServerSpn, kdcSettings } from '../../test/testbed/kerberos.js';
import { isMain, loadAverage, ratioRow, report, runAlone, runLine, type BenchReport, type Benchmark } from '../results.js';
import { percentile } from '../stats.js';

const HEADING = '## SMB session setup: Kerberos and NTLM';
const SETUPS = 40;
const STATS = 2000;
const user = 'anna';
const password = env.users[user]!.password;
const settings = kdcSettings(36_000);

const ntlm: Credentials = { domain: env.smb.domain, user, password };
const kerberos = (client: KerberosClient): Credentials => ({ ...ntlm, kerberos: { client, spn: fileServerSpn, fallbackToNtlm: false } });

/** Milliseconds of each of `count` connection + session setups (and logoffs, not timed). */
async function setupTimes(count: number, credentials: () => Credentials): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const connection = await Connection.connect({ host: env.smb.host, port: env.smb.port });
    const session = await Session.setup(connection, credentials());
    times.push(performance.now() - start);
    await session.logoff();
    connection.close();
  }
  return times.sort((a, b) => a - b);
}

/** Stats per second of one file over one established session. */
async function statRate(credentials: Credentials): Promise<number> {
  const client = new SmbClient();
  const share = client.share({ host: env.smb.host, port: env.smb.port, ...credentials, share: 'schule' });
  await share.stat('Aushang.txt');
  const start = performance.now();
  for (let i = 0; i < STATS; i++) await share.stat('Aushang.txt');
  const seconds = (performance.now() - start) / 1000;
  await client.close();
  return STATS / seconds;
}

async function run(): Promise<BenchReport> {
  const load = loadAverage();
  const warm = new KerberosClient(settings, user, { password });
  await warm.serviceTicket(fileServerSpn);
  // Interleaved rounds, so that a busy spell of the shared host hits all three alike.
  const samples = { ntlm: [] as number[], cached: [] as number[], cold: [] as number[] };
  for (let round = 0; round < 4; round++) {
    samples.ntlm.push(...(await setupTimes(SETUPS / 4, () => ntlm)));
    samples.cached.push(...(await setupTimes(SETUPS / 4, () => kerberos(warm))));
    samples.cold.push(...(await setupTimes(SETUPS / 4, () => kerberos(new KerberosClient(settings, user, { password })))));
  }
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
  const p90 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.9);
  const statsNtlm = await statRate(ntlm);
  const statsKerberos = await statRate(kerberos(warm));
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    runLine(SCRIPT, load),
    `Testbed: Samba AD DC on loopback (its KDC and its file server), dialect 3.1.1, as ${user}; ${SETUPS} setups of each kind, in 4 interleaved rounds.`,
    '',
    line(['logon', 'connection + session setup, median ms', 'p90 ms', 'x NTLM (median)']),
    '|---|---:|---:|---:|',
    line(['NTLM', median(samples.ntlm).toFixed(2), p90(samples.ntlm).toFixed(2), '1.00']),
    line(['Kerberos, ticket cached', median(samples.cached).toFixed(2), p90(samples.cached).toFixed(2), (median(samples.cached) / median(samples.ntlm)).toFixed(2)]),
    line(['Kerberos, no ticket yet (AS, AS, TGS first)', median(samples.cold).toFixed(2), p90(samples.cold).toFixed(2), (median(samples.cold) / median(samples.ntlm)).toFixed(2)]),
    '',
    `On an established session: ${statsNtlm.toFixed(0)} stats/s with NTLM, ${statsKerberos.toFixed(0)} with Kerberos (${STATS} stats of one file, one at a time).`,
    '',
  ];
  return report(HEADING, lines, [
    ratioRow('new session with a cached Kerberos ticket, median ms', median(samples.cached), median(samples.ntlm), 'NTLM', { atMost: 1.5 }, 2),
    ratioRow('stats/s on an established Kerberos session', statsKerberos, statsNtlm, 'NTLM session', { atLeast: 0.9 }),
  ]);
}

const SCRIPT = 'dist/bench/smb/session-setup.js';
export const sessionSetupBench: Benchmark = { name: 'smb-session-setup', script: SCRIPT, run };

if (isMain(import.meta.url)) await runAlone(import.meta.url, sessionSetupBench);
