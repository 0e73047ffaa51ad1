// SMB sessions with Kerberos against the testbed DC, with its file server refusing NTLM (so that a logon that
// works used Kerberos alone): a user's own logon, the encrypted share, the indexer with a keytab (flow 1), a
// WebDAV user's Basic login (flow 2), and smb.auth negotiate falling back to NTLM only where no ticket can be had.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFile } from 'node:fs/promises';
import { SmbLogons } from '../../../src/logon/smb-logons.js';
import { SmbClient, SmbError } from '../../../src/smb/index.js';
import { Connection } from '../../../src/smb/connection.js';
import { Session } from '../../../src/smb/session.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { exportKeytab, fileServerSpn, kerberosConfig, refuseNtlm } from '../../testbed/kerberos.js';
import { startService, type RunningService } from '../../support/service.js';
import { loggedReadiness } from '../../support/readiness-log.js';
import { DavClient, account } from '../webdav/dav-client.js';
import { skipWithoutNtlm } from '../../support/smb-logons.js';
import { kerberosTestConfig } from './config.js';

/** SmbLogons for the testbed's smb section with this smb.auth and kerberos section (null: none). */
function logonsWith(env: TestbedEnv, auth: 'negotiate' | 'kerberos' | 'ntlm', kerberos: object | null = kerberosConfig): SmbLogons {
  return new SmbLogons(kerberosTestConfig(env, { auth, kerberos }));
}

async function mechanismOf(env: TestbedEnv, credentials: Parameters<typeof Session.setup>[1]): Promise<string> {
  const connection = await Connection.connect({ host: env.smb.host, port: env.smb.port });
  try {
    const session = await Session.setup(connection, credentials);
    await session.logoff();
    return session.mechanism;
  } finally {
    connection.close();
  }
}

describe('SMB sessions with Kerberos', () => {
  let env: TestbedEnv;
  let client: SmbClient;
  let dir: string;
  before(async () => {
    env = await readTestbedEnv();
    client = new SmbClient();
    dir = await mkdtemp(join(tmpdir(), 'kerberos-smb-'));
  });
  after(async () => {
    await refuseNtlm(false);
    await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('smb.auth negotiate uses NTLM where no ticket can be had (no SPN for the server), and Kerberos where one can', async (t) => {
    const skip = skipWithoutNtlm(env);
    if (skip) return t.skip(skip);
    const anna = env.users['anna']!.password;
    const noSpn = logonsWith(env, 'negotiate', { ...kerberosConfig, spns: { [env.smb.host]: 'cifs/nosuch.edu.test' } });
    assert.equal(await mechanismOf(env, noSpn.user(env.smb.host, env.smb.domain, 'anna', anna)), 'ntlm');
    assert.equal(await mechanismOf(env, logonsWith(env, 'negotiate').user(env.smb.host, env.smb.domain, 'anna', anna)), 'kerberos');
    assert.equal(await mechanismOf(env, logonsWith(env, 'negotiate', null).user(env.smb.host, env.smb.domain, 'anna', anna)), 'ntlm', 'without a kerberos section');
    assert.equal(await mechanismOf(env, logonsWith(env, 'ntlm').user(env.smb.host, env.smb.domain, 'anna', anna)), 'ntlm');
  });

  it('with NTLM refused by the file server, a user reads both shares (the encrypted one too) over Kerberos and the NT ACLs still decide', async () => {
    await refuseNtlm(true);
    const ntlm = logonsWith(env, 'ntlm').user(env.smb.host, env.smb.domain, 'anna', env.users['anna']!.password);
    await assert.rejects(mechanismOf(env, ntlm), /0xc0000418/, 'the testbed refuses NTLM (STATUS_NTLM_BLOCKED)');
    const logons = logonsWith(env, 'kerberos');
    const as = (user: string, share: string) =>
      client.share({ host: env.smb.host, port: env.smb.port, ...logons.user(env.smb.host, env.smb.domain, user, env.users[user]!.password), share });
    assert.ok((await as('anna', 'schule').readdir('')).some((e) => e.name === 'Aushang.txt'));
    assert.ok((await as('dora', 'verwaltung').readdir('')).length > 0, 'the share that requires encryption');
    await assert.rejects(as('carla', 'schule').readdir('Lehrerzimmer'), (e: unknown) => e instanceof SmbError && e.code === 'ACCESS_DENIED');
  });

  it('refuses a wrong password as a logon failure, and smb.auth kerberos a server without SPN naming the SPN', async () => {
    await refuseNtlm(true);
    const wrong = logonsWith(env, 'negotiate').user(env.smb.host, env.smb.domain, 'anna', 'not her password');
    await assert.rejects(mechanismOf(env, wrong), (e: unknown) => e instanceof SmbError && e.code === 'LOGON_FAILURE' && /wrong password/.test(e.message));
    const noSpn = logonsWith(env, 'kerberos', { ...kerberosConfig, spns: { [env.smb.host]: 'cifs/nosuch.edu.test' } });
    await assert.rejects(
      mechanismOf(env, noSpn.user(env.smb.host, env.smb.domain, 'anna', env.users['anna']!.password)),
      (e: unknown) => e instanceof SmbError && e.code === 'STATUS_ERROR' && /cifs\/nosuch\.edu\.test/.test(e.message),
    );
    const noKdc = logonsWith(env, 'kerberos', { ...kerberosConfig, kdcs: ['127.0.0.1:1'] });
    await assert.rejects(
      mechanismOf(env, noKdc.user(env.smb.host, env.smb.domain, 'anna', env.users['anna']!.password)),
      (e: unknown) => e instanceof SmbError && e.code === 'TIMEOUT' && /no KDC answered/.test(e.message),
      'a KDC that does not answer: the backend is unavailable (503 over WebDAV)',
    );
  });

  it('flow 1: the indexer logs on with the keys of its keytab', async () => {
    await refuseNtlm(true);
    const keytab = join(dir, 'indexer.keytab');
    await exportKeytab(env.indexer.user, keytab);
    const credentials = logonsWith(env, 'kerberos').indexer(env.smb.host, { indexerKeytab: await readFile(keytab) });
    assert.equal(credentials.password, '', 'no password needed');
    assert.equal(await mechanismOf(env, credentials), 'kerberos');
  });

  describe('the service with smb.auth kerberos, NTLM refused by the file server', () => {
    let service: RunningService;
    before(async () => {
      await refuseNtlm(true);
      const keytab = join(dir, 'service-indexer.keytab');
      await exportKeytab(env.indexer.user, keytab);
      service = await startService({ kerberos: kerberosConfig, smb: { auth: 'kerberos', indexer_service_account: { keytab_file: keytab } } });
    });
    after(async () => {
      assert.equal(await service.stop(), 0);
    });

    it('flow 2: a WebDAV user\'s Basic login becomes a Kerberos SMB session with that user\'s rights; a wrong password is 401', async () => {
      assert.equal((await new DavClient(service, account(env, 'anna')).request('GET', 'Aushang.txt')).status, 200);
      assert.equal((await new DavClient(service, account(env, 'carla')).request('GET', 'Lehrerzimmer/.wiki/index.md')).status, 403);
      assert.equal((await new DavClient(service, account(env, 'dora'), 'verwaltung').request('GET', '.wiki/index.md')).status, 200);
      const wrong = await new DavClient(service, { user: 'anna', password: 'not her password' }).request('GET', 'Aushang.txt');
      assert.equal(wrong.status, 401);
    });

    it('flow 1: the readiness probe logs the indexer on with its keytab over Kerberos', async () => {
      const report = (await (await fetch(`${service.url}/readyz`)).json()) as { checks: Record<string, { status: string }> };
      assert.equal(report.checks['smb']!.status, 'up');
      assert.match((await loggedReadiness(service, ['smb']))['smb']!, new RegExp(`\\(Kerberos, ${fileServerSpn}\\)$`));
    });
  });
});
