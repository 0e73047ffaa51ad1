// Writes through the proxy while another SMB client holds the file (issue 40, cases 1 to 4): a reader's open
// without delete sharing, an open without any sharing, a byte-range lock as Office takes one. Over SMB each of these
// operations either succeeds whole or is refused with nothing changed; through the proxy too — the destination of a
// MOVE or COPY is never deleted while the source stays, a save never cuts or pads the page. The other client is the
// project's SMB client logged on as the DC administrator on its own connection.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Access, Disposition, ShareAccess, SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { LockFlags } from '../../../src/smb/messages/lock.js';
import { LeaseState, OplockLevel } from '../../../src/smb/messages/oplock.js';
import { FileHandle } from '../../../src/smb/open.js';
import { startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { smbcacls } from '../smb/testbed.js';
import { DavClient, account } from './dav-client.js';
import { removeOnDisk } from './write-oracle/fixture.js';

/** FILE_GENERIC_READ | FILE_GENERIC_WRITE | DELETE | EXECUTE: "Change" in the Windows dialog. */
const CHANGE = '0x1301bf';

describe('writes while another SMB client holds the file end whole or change nothing', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let anna: DavClient;
  const smb = new SmbClient();
  /** The other client: its own pool, so its own connection and session. */
  const otherSmb = new SmbClient();
  let admin: SmbShare;
  let other: SmbShare;
  const dir = `_others-${randomBytes(4).toString('hex')}`;

  /** Opens `path` as the other client, runs `during` while it is held, closes it. */
  async function holding(path: string, how: { shareAccess: number; lock?: number }, during: () => Promise<void>): Promise<void> {
    const handle = await other.withTree((tree) => FileHandle.open(tree, {
      name: path.replaceAll('/', '\\'), desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES, disposition: Disposition.OPEN, shareAccess: how.shareAccess,
    }));
    try {
      if (how.lock !== undefined) await handle.lock([{ offset: 0n, length: 4n, flags: how.lock | LockFlags.FAIL_IMMEDIATELY }]);
      await during();
    } finally {
      await handle.close();
    }
  }

  const content = async (path: string): Promise<string> => (await admin.readFile(path)).toString();
  const leftovers = async (): Promise<string[]> => (await admin.readdir(dir)).map((e) => e.name).filter((n) => n.endsWith('.tmp'));

  async function pair(name: string): Promise<{ source: string; target: string }> {
    const source = `${dir}/${name}-quelle.txt`;
    const target = `${dir}/${name}-ziel.txt`;
    await admin.writeFile(source, `Quelle ${name}\n`);
    await admin.writeFile(target, `Ziel ${name}, alter Inhalt\n`);
    return { source, target };
  }

  const overwrite = (method: 'MOVE' | 'COPY', from: string, to: string): Promise<Response> =>
    anna.request(method, from, { headers: { destination: anna.url(to), overwrite: 'T' } });

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({ smb: { shares: [{ name: 'schule' }] } });
    anna = new DavClient(service, account(env, 'anna'));
    admin = testbedShare(smb, env, env.dc_admin, 'schule');
    other = testbedShare(otherSmb, env, env.dc_admin, 'schule');
    await admin.mkdir(dir);
    const indexer = env.users[env.indexer.user]!.sid;
    smbcacls('schule', dir, ['--sddl', '--set', `D:PAI(A;OICI;FA;;;BA)(A;OICI;${CHANGE};;;${env.groups['Lehrer']!})(A;OICI;0x120089;;;${indexer})`]);
  });
  after(async () => {
    await service.stop();
    try {
      await removeOnDisk(env, 'schule', dir);
    } finally {
      await Promise.all([smb.close(), otherSmb.close()]);
    }
  });

  it('MOVE over an existing file while a reader holds the source without delete sharing: 423, both files as they were', async () => {
    const { source, target } = await pair('move-offen');
    await holding(source, { shareAccess: ShareAccess.READ | ShareAccess.WRITE }, async () => {
      const res = await overwrite('MOVE', source, target);
      assert.equal(res.status, 423, await res.text());
    });
    assert.equal(await content(target), 'Ziel move-offen, alter Inhalt\n', 'the destination is kept');
    assert.equal(await content(source), 'Quelle move-offen\n');
    assert.deepEqual(await leftovers(), []);
    assert.equal((await overwrite('MOVE', source, target)).status, 204, 'once the reader is gone');
    assert.equal(await content(target), 'Quelle move-offen\n');
  });

  it('COPY over an existing file while a reader holds the source without sharing: 423, the destination as it was', async () => {
    const { source, target } = await pair('copy-offen');
    await holding(source, { shareAccess: 0 }, async () => {
      const res = await overwrite('COPY', source, target);
      assert.equal(res.status, 423, await res.text());
    });
    assert.equal(await content(target), 'Ziel copy-offen, alter Inhalt\n');
    assert.deepEqual(await leftovers(), []);
    assert.equal((await overwrite('COPY', source, target)).status, 204);
    assert.equal(await content(target), 'Quelle copy-offen\n');
  });

  it('COPY over an existing file while a reader holds a byte-range lock on the source: 423, the destination as it was', async () => {
    const { source, target } = await pair('copy-sperre');
    await holding(source, { shareAccess: ShareAccess.ALL, lock: LockFlags.EXCLUSIVE }, async () => {
      const res = await overwrite('COPY', source, target);
      assert.equal(res.status, 423, await res.text());
    });
    assert.equal(await content(target), 'Ziel copy-sperre, alter Inhalt\n');
    assert.deepEqual(await leftovers(), []);
  });

  for (const body of ['neu', 'ein viel längerer neuer Inhalt der Seite\n']) {
    it(`a save while a reader holds a byte-range lock on the page: 423, the page as it was (${body.length} bytes)`, async () => {
      const page = `${dir}/seite-${body.length}.md`;
      await admin.writeFile(page, '# Seite\n\nalter Inhalt\n');
      await holding(page, { shareAccess: ShareAccess.ALL, lock: LockFlags.SHARED }, async () => {
        const res = await anna.put(page, body);
        assert.deepEqual([res.status, (await res.json() as { error: string }).error], [423, 'in_use']);
      });
      assert.equal(await content(page), '# Seite\n\nalter Inhalt\n', 'neither cut nor padded');
      assert.equal((await anna.put(page, body)).status, 204, 'once the lock is gone');
      assert.equal(await content(page), body);
    });
  }

  it('a save while another client holds a lease it never gives up: 423 after 15 s, the page as it was, nothing left open', async () => {
    const page = `${dir}/gepachtet.md`;
    await admin.writeFile(page, 'alt');
    const lease = { key: randomBytes(16), state: LeaseState.READ | LeaseState.WRITE | LeaseState.HANDLE };
    // This holder acknowledges no break: Samba would hold the save's open for 35 s.
    const handle = await other.withTree((tree) => FileHandle.open(tree, {
      name: page.replaceAll('/', '\\'), desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES, disposition: Disposition.OPEN,
      shareAccess: ShareAccess.ALL, oplockLevel: OplockLevel.LEASE, lease,
    }));
    try {
      assert.equal(handle.info.leaseState, lease.state);
      const started = Date.now();
      const res = await anna.put(page, 'neu');
      assert.deepEqual([res.status, (await res.json() as { error: string }).error], [423, 'in_use']);
      assert.ok(Date.now() - started < 25_000, `answered after ${Date.now() - started} ms`);
    } finally {
      await handle.close();
    }
    assert.equal(await content(page), 'alt');
    assert.equal((await anna.put(page, 'neu')).status, 204, 'the cancelled open left nothing that holds the page');
  });

  it('MOVE of a file onto a folder that holds it: 403, the folder and the file stay', async () => {
    await admin.mkdir(`${dir}/d/sub`, { recursive: true });
    await admin.writeFile(`${dir}/d/sub/f.txt`, 'f');
    await admin.writeFile(`${dir}/d/g.txt`, 'g');
    const res = await overwrite('MOVE', `${dir}/d/sub/f.txt`, `${dir}/d`);
    assert.deepEqual([res.status, (await res.json() as { error: string }).error], [403, 'onto_ancestor']);
    assert.equal(await content(`${dir}/d/sub/f.txt`), 'f');
    assert.equal(await content(`${dir}/d/g.txt`), 'g');
  });

  it('MOVE and COPY of a folder over an existing folder replace it whole; a source folder held open leaves the old one in place', async () => {
    await admin.mkdir(`${dir}/alt/unter`, { recursive: true });
    await admin.writeFile(`${dir}/alt/unter/a.txt`, 'alt');
    await admin.mkdir(`${dir}/neu`);
    await admin.writeFile(`${dir}/neu/b.txt`, 'neu');
    await holding(`${dir}/neu`, { shareAccess: ShareAccess.READ | ShareAccess.WRITE }, async () => {
      const res = await overwrite('MOVE', `${dir}/neu`, `${dir}/alt`);
      assert.equal(res.status, 423, await res.text());
    });
    assert.equal(await content(`${dir}/alt/unter/a.txt`), 'alt', 'the old folder is back');
    assert.deepEqual(await leftovers(), []);
    assert.equal((await overwrite('COPY', `${dir}/neu`, `${dir}/alt`)).status, 204);
    assert.deepEqual((await admin.readdir(`${dir}/alt`)).map((e) => e.name), ['b.txt'], 'the old members are gone');
    assert.equal((await overwrite('MOVE', `${dir}/neu`, `${dir}/alt`)).status, 204);
    assert.equal(await content(`${dir}/alt/b.txt`), 'neu');
    assert.deepEqual(await leftovers(), []);
  });
});
