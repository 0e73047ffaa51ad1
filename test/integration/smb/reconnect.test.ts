import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { SmbClient, SmbError } from '../../../src/smb/index.js';
import { Connection } from '../../../src/smb/connection.js';
import { Session } from '../../../src/smb/session.js';
import { testbedCredentials } from '../../support/smb-logons.js';
import { env, removeTree, scratchName, shareFor } from './testbed.js';

/** The smbd child serving the TCP connection whose client side is `localPort` (via `ss -tnp`). */
function smbdChildFor(localPort: number): number {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${env.smb.port} and dport = :${localPort} )`], {
    encoding: 'utf8',
  });
  const pids = [...out.matchAll(/"smbd",pid=(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(new Set(pids).size, 1, `expected exactly one smbd process for port ${localPort}, ss said: ${out}`);
  return pids[0]!;
}

function killChild(localPort: number): void {
  process.kill(smbdChildFor(localPort), 'SIGKILL');
}

describe('reconnect after the server side of the connection dies', () => {
  const client = new SmbClient();
  const share = shareFor(client, env.admin);
  const dir = scratchName();

  after(async () => {
    await removeTree(share, dir).catch(() => undefined);
    await client.close();
  });

  test('in-flight requests fail with CONNECTION_CLOSED and later requests on that connection too', async () => {
    const conn = await Connection.connect({ host: env.smb.host, port: env.smb.port });
    await Session.setup(conn, testbedCredentials(env, env.admin));
    const closed = new Promise<Error>((resolve) => conn.onceClosed(resolve));
    // Freeze the server process first so that the requests are certainly in flight when it dies.
    const pid = smbdChildFor(conn.localPort!);
    process.kill(pid, 'SIGSTOP');
    const inFlight = Array.from({ length: 20 }, () => conn.echo());
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid, 'SIGKILL');
    const results = await Promise.allSettled(inFlight);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.equal((r.reason as { code: string }).code, 'CONNECTION_CLOSED');
    }
    const reason = await closed;
    assert.ok(reason instanceof SmbError && reason.code === 'CONNECTION_CLOSED', String(reason));
    await assert.rejects(conn.echo(), { code: 'CONNECTION_CLOSED' });
  });

  test('the facade reconnects (new session and tree) and retries idempotent reads', async () => {
    await share.mkdir(dir);
    await share.writeFile(`${dir}/a.txt`, 'vorher');
    const firstPort = (await share.localPort())!;
    killChild(firstPort);
    // Reads already issued or issued right after the kill are retried once on a fresh connection.
    const reads = await Promise.all(Array.from({ length: 10 }, () => share.readFile(`${dir}/a.txt`)));
    assert.ok(reads.every((b) => b.toString() === 'vorher'));
    const secondPort = await share.localPort();
    assert.notEqual(secondPort, firstPort);
    await share.writeFile(`${dir}/a.txt`, 'nachher');
    assert.equal((await share.readFile(`${dir}/a.txt`)).toString(), 'nachher');
  });
});
