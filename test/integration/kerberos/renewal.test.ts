// Tickets that run out within seconds, against the testbed DC: the KDC issues the short lifetime the client asks for (kerberos.ticket_lifetime; smb.conf's `kdc:user ticket lifetime` counts in hours, so the
// client's requested end time is the lever). The file server ends a Kerberos SMB session when its ticket expires
// (STATUS_NETWORK_SESSION_EXPIRED), so tickets are fetched anew and sessions re-authenticated before that. Across
// several expiries no WebDAV request and no read of the indexer fails, each ticket is followed by a new one before
// it ends, and the indexer's session stays on its first connection (re-authenticated, not reconnected). With
// smb.auth: kerberos the service and the indexer log on with Kerberos only (no NTLM to fall back to), so an expiry
// not met in time fails a request; the DC need not refuse NTLM, and the file runs beside others that use it
// (test/tiers.ts).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Credential } from '../../../src/kerberos/exchanges.js';
import { KerberosClient } from '../../../src/kerberos/client.js';
import { SmbLogons } from '../../../src/logon/smb-logons.js';
import { SmbClient } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { exportKeytab, fileServerSpn, kerberosConfig } from '../../testbed/kerberos.js';
import { startService, type RunningService } from '../../support/service.js';
import { DavClient, account } from '../webdav/dav-client.js';
import { kerberosTestConfig } from './config.js';

/**
 * Short, so that three expiries take under half a minute, and long enough that the renewal half a lifetime (4 s)
 * before the end has time to finish on a busy machine (a ticket request takes well under a second there).
 */
const LIFETIME_SECONDS = 8;
/** Long enough for three expiries of the first ticket. */
const RUN_MS = 3.5 * LIFETIME_SECONDS * 1000;
const PAUSE_MS = 1500;

describe('Kerberos tickets renewed before they expire', () => {
  let env: TestbedEnv;
  let dir: string;
  let keytab: string;
  let service: RunningService;
  const shortTickets = { ...kerberosConfig, ticket_lifetime: `${LIFETIME_SECONDS}s` };
  before(async () => {
    env = await readTestbedEnv();
    dir = await mkdtemp(join(tmpdir(), 'kerberos-renewal-'));
    keytab = join(dir, 'indexer.keytab');
    await exportKeytab(env.indexer.user, keytab);
    service = await startService({ kerberos: shortTickets, smb: { auth: 'kerberos', indexer_service_account: { keytab_file: keytab } } });
  });
  after(async () => {
    assert.equal(await service.stop(), 0);
    await rm(dir, { recursive: true, force: true });
  });

  it('serves WebDAV reads and writes and the indexer\'s reads across several expiries, with no failed request', async () => {
    const logons = new SmbLogons(kerberosTestConfig(env, { auth: 'kerberos', kerberos: shortTickets, keytab }));
    const credentials = logons.indexer(env.smb.host, { indexerKeytab: await readFile(keytab) });
    assert.equal(credentials.kerberos?.fallbackToNtlm, false, 'the indexer logs on with Kerberos only');
    const tickets = credentials.kerberos.client as KerberosClient;
    const smb = new SmbClient();
    const share = smb.share({ host: env.smb.host, port: env.smb.port, ...credentials, share: 'schule' });
    const anna = new DavClient(service, account(env, 'anna'));
    const file = `renewal-${process.pid}.txt`;
    const failures: string[] = [];
    const seen: Credential[] = [];
    let requests = 0;
    const ports = new Set<number | undefined>();
    try {
      for (const end = Date.now() + RUN_MS; Date.now() < end; await sleep(PAUSE_MS)) {
        const body = `written at ${new Date().toISOString()}`;
        const results = await Promise.allSettled([
          anna.request('GET', 'Aushang.txt').then((r) => ['GET', r.status] as const),
          anna.request('PUT', file, { body }).then((r) => ['PUT', r.status] as const),
          share.readdir('').then(() => ['indexer readdir', 200] as const),
        ]);
        for (const result of results) {
          requests++;
          if (result.status === 'rejected') failures.push(String(result.reason));
          else if (result.value[1] >= 300) failures.push(`${result.value[0]}: ${result.value[1]}`);
        }
        const current = await tickets.serviceTicket(fileServerSpn);
        if (seen.at(-1) !== current) seen.push(current);
        ports.add(await smb.pool.endpoint({ host: env.smb.host, port: env.smb.port }, credentials).localPort());
      }
      assert.equal((await anna.request('GET', file)).status, 200);
    } finally {
      await anna.request('DELETE', file);
      await smb.close();
    }
    assert.deepEqual(failures, [], `${failures.length} of ${requests} requests failed`);
    const lifetime = seen[0]!.endtime.getTime() - seen[0]!.authtime.getTime();
    assert.ok(lifetime <= LIFETIME_SECONDS * 1000, `the KDC issued the short lifetime asked for (${lifetime} ms)`);
    assert.ok(seen.length >= 4, `tickets through ${seen.length - 1} expiries`);
    for (let i = 1; i < seen.length; i++) {
      assert.ok(seen[i]!.authtime < seen[i - 1]!.endtime, `ticket ${i} was fetched before ticket ${i - 1} ended`);
    }
    assert.equal(ports.size, 1, 'the indexer\'s session stayed on its connection: re-authenticated, never ended by the server');
    assert.doesNotMatch(service.output(), /SESSION_EXPIRED|NETWORK_SESSION_EXPIRED/);
  });
});
