import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Access, AceType, Dialect, Disposition, Endpoint, SmbClient, SmbError, SmbPool, grantsRead, readAccessSids, type SmbShare } from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import { env, removeTree, scratchName, shareFor, smbcacls, userAccount } from './testbed.js';
import { waitFor } from '../../support/service.js';

describe('SMB facade against the testbed DC (schule, signed SMB 3.1.1)', () => {
  const client = new SmbClient();
  let share: SmbShare;
  const dir = scratchName();
  const p = (name: string): string => `${dir}/${name}`;

  before(async () => {
    share = shareFor(client, env.admin);
    await share.mkdir(dir);
  });

  after(async () => {
    await removeTree(share, dir);
    await client.close();
  });

  test('writeFile / readFile round trips small, empty and multi-chunk content', async () => {
    await share.writeFile(p('small.txt'), 'Grüße aus der Schule\n');
    assert.equal((await share.readFile(p('small.txt'))).toString('utf8'), 'Grüße aus der Schule\n');
    await share.writeFile(p('empty.bin'), Buffer.alloc(0));
    assert.equal((await share.readFile(p('empty.bin'))).length, 0);
    const big = randomBytes(3 * 1024 * 1024 + 12345);
    await share.writeFile(p('big.bin'), big);
    assert.ok((await share.readFile(p('big.bin'))).equals(big));
  });

  test('writeFile to a server that takes at most 64 KiB in one WRITE (SMB 2.0.2) writes each size whole', async () => {
    // Samba refuses a WRITE over the negotiated MaxWriteSize with INVALID_PARAMETER: the upload must split its blocks.
    const small = new SmbClient(new SmbPool({ dialects: [Dialect.SMB202] }));
    try {
      const old = shareFor(small, env.admin);
      for (const size of [64 * 1024, 64 * 1024 + 1, 300_000]) {
        const body = randomBytes(size);
        await old.writeFile(p(`smb202-${size}.bin`), body);
        assert.ok((await share.readFile(p(`smb202-${size}.bin`))).equals(body), `${size} bytes`);
      }
    } finally {
      await small.close();
    }
  });

  test('readers never see a partially written or mixed version', async () => {
    const size = 300_000; // several READs per version
    const versions = ['A', 'B'].map((c) => Buffer.alloc(size, c));
    await share.writeFile(p('flip.bin'), versions[0]!);
    let writing = true;
    const writer = (async () => {
      for (let i = 1; i <= 12; i++) await share.writeFile(p('flip.bin'), versions[i % 2]!);
      writing = false;
    })();
    let reads = 0;
    const reader = async (): Promise<void> => {
      while (writing) {
        const data = await share.readFile(p('flip.bin'));
        assert.equal(data.length, size);
        assert.ok(data.equals(versions[0]!) || data.equals(versions[1]!), 'content of exactly one version');
        reads++;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);
    assert.ok(reads > 0);
  });

  test('readFile reads byte ranges', async () => {
    const big = randomBytes(2 * 1024 * 1024 + 777);
    await share.writeFile(p('range.bin'), big);
    const cases: [number, number | undefined][] = [[0, 10], [100_000, 200_000], [5, 65536], [big.length - 100, 1000], [2_000_000, undefined]];
    for (const [offset, length] of cases) {
      const expected = big.subarray(offset, length === undefined ? undefined : offset + length);
      assert.ok((await share.readFile(p('range.bin'), { offset, length })).equals(expected), `${offset}+${length}`);
    }
    assert.equal((await share.readFile(p('range.bin'), { offset: big.length + 5, length: 10 })).length, 0);
    await assert.rejects(share.readFile(p('range.bin'), { offset: -1 }), { code: 'INVALID_ARGUMENT' });
  });

  test('writeFile writes over the target in place and leaves nothing else behind', async () => {
    await share.mkdir(p('inplace'));
    const first = await share.writeFile(p('inplace/doc.md'), 'version 1, longer than the next one');
    const sd = await share.getSecurity(p('inplace/doc.md'));
    const second = await share.writeFile(p('inplace/doc.md'), 'version 2');
    assert.equal((await share.readFile(p('inplace/doc.md'))).toString(), 'version 2', 'shorter content truncates the file');
    assert.deepEqual([second.fileId, second.birthtime.getTime()], [first.fileId, first.birthtime.getTime()], 'same file, same creation time');
    assert.deepEqual(await share.getSecurity(p('inplace/doc.md')), sd, 'owner and DACL stay');
    const big = randomBytes(2 * 1024 * 1024 + 5); // through a staging file and a server-side copy
    assert.equal((await share.writeFile(p('inplace/doc.md'), big)).fileId, first.fileId);
    assert.ok((await share.readFile(p('inplace/doc.md'))).equals(big));
    assert.deepEqual((await share.readdir(p('inplace'))).map((e) => e.name), ['doc.md'], 'no staging file is left');
    await share.mkdir(p('inplace/sub'));
    await assert.rejects(share.writeFile(p('inplace/sub'), 'a file cannot replace a folder'), { code: 'IS_A_DIRECTORY' });
    await assert.rejects(share.writeFile('', 'x'), { code: 'INVALID_ARGUMENT' });
  });

  test('stat returns size, times, attributes and a stable file id', async () => {
    const before = Date.now();
    const written = await share.writeFile(p('stat.txt'), '12345');
    const st = await share.stat(p('stat.txt'));
    assert.deepEqual(
      [written.fileId, written.size, written.mtimeMs, written.path],
      [st.fileId, st.size, st.mtimeMs, st.path],
      'writeFile returns the stat of the version it wrote',
    );
    assert.equal(st.size, 5);
    assert.equal(st.isDirectory, false);
    assert.equal(st.name, 'stat.txt');
    assert.equal(st.path, p('stat.txt'));
    assert.match(st.fileId, /^[1-9]\d*$/);
    assert.ok(st.mtime instanceof Date && Math.abs(st.mtimeMs - before) < 60_000);
    assert.equal((await share.stat(p('stat.txt'))).fileId, st.fileId);
    const d = await share.stat(dir);
    assert.equal(d.isDirectory, true);
    assert.equal((await share.stat('')).isDirectory, true);
    const listed = (await share.readdir(dir)).find((e) => e.name === 'stat.txt');
    assert.equal(listed?.fileId, st.fileId);
    assert.equal(listed?.size, 5);
  });

  test('setTimes changes the modification time', async () => {
    await share.writeFile(p('times.txt'), 'x');
    const mtime = Date.UTC(2024, 0, 2, 3, 4, 5);
    await share.setTimes(p('times.txt'), { lastWriteTime: mtime });
    assert.equal((await share.stat(p('times.txt'))).mtimeMs, mtime);
  });

  test('mkdir, rmdir, unlink and their typed errors', async () => {
    await share.mkdir(p('a/b/c'), { recursive: true });
    await share.mkdir(p('a/b/c'), { recursive: true });
    await assert.rejects(share.mkdir(p('a')), { code: 'NAME_COLLISION' });
    await share.writeFile(p('a/b/c/f.txt'), 'f');
    await assert.rejects(share.rmdir(p('a/b/c')), { code: 'DIRECTORY_NOT_EMPTY' });
    await assert.rejects(share.rmdir(p('a/b/c/f.txt')), { code: 'NOT_A_DIRECTORY' });
    await assert.rejects(share.unlink(p('a/b/c')), { code: 'IS_A_DIRECTORY' });
    await share.unlink(p('a/b/c/f.txt'));
    await assert.rejects(share.unlink(p('a/b/c/f.txt')), (err: { code: string; status: number }) => {
      assert.equal(err.code, 'NOT_FOUND');
      assert.equal(err.status, 0xc0000034);
      return true;
    });
    await assert.rejects(share.readFile(p('missing/deeper.txt')), { code: 'NOT_FOUND' });
    await share.rmdir(p('a/b/c'));
    await share.rmdir(p('a/b'));
    await share.rmdir(p('a'));
    await assert.rejects(share.stat(p('a')), { code: 'NOT_FOUND' });
    await assert.rejects(share.readFile('../etc/passwd'), { code: 'INVALID_ARGUMENT' });
  });

  test('an exclusively opened file gives SHARING_VIOLATION', async () => {
    await share.writeFile(p('locked.txt'), 'mine');
    const handle = await share.withTree((tree) =>
      FileHandle.open(tree, { name: `${dir}\\locked.txt`, desiredAccess: Access.GENERIC_READ, disposition: Disposition.OPEN, shareAccess: 0 }),
    );
    try {
      await assert.rejects(share.readFile(p('locked.txt')), (err: { code: string; status: number }) => {
        assert.equal(err.code, 'SHARING_VIOLATION');
        assert.equal(err.status, 0xc0000043);
        return true;
      });
    } finally {
      await handle.close();
    }
    assert.equal((await share.readFile(p('locked.txt'))).toString(), 'mine');
  });

  test('rename with and without replace', async () => {
    await share.writeFile(p('r1.txt'), 'one');
    await share.writeFile(p('r2.txt'), 'two');
    await assert.rejects(share.rename(p('r1.txt'), p('r2.txt')), { code: 'NAME_COLLISION' });
    await share.rename(p('r1.txt'), p('r3.txt'));
    assert.equal((await share.readFile(p('r3.txt'))).toString(), 'one');
    await share.rename(p('r3.txt'), p('r2.txt'), { replace: true });
    assert.equal((await share.readFile(p('r2.txt'))).toString(), 'one');
    await assert.rejects(share.stat(p('r3.txt')), { code: 'NOT_FOUND' });
  });

  test('readdir pages through listings larger than one QUERY_DIRECTORY buffer', async () => {
    await share.mkdir(p('many'));
    const names = Array.from({ length: 700 }, (_, i) => `eintrag-${String(i).padStart(4, '0')}-${'x'.repeat(60)}.txt`);
    await Promise.all(names.map((n) => share.writeFile(p(`many/${n}`), n)));
    const listed = await share.readdir(p('many'));
    assert.deepEqual(listed.map((e) => e.name).sort(), names);
    assert.ok(listed.every((e) => !e.isDirectory && e.size === e.name.length));
  });

  test('walk visits the tree with bounded concurrency and honours descend/include', async () => {
    await share.mkdir(p('tree/x/y'), { recursive: true });
    await share.mkdir(p('tree/skip'), { recursive: true });
    await share.writeFile(p('tree/x/y/a.md'), 'a');
    await share.writeFile(p('tree/x/b.txt'), 'b');
    await share.writeFile(p('tree/skip/c.md'), 'c');
    const all: string[] = [];
    for await (const e of share.walk(p('tree'), { concurrency: 2 })) all.push(e.path);
    assert.deepEqual(all.sort(), ['skip', 'skip/c.md', 'x', 'x/b.txt', 'x/y', 'x/y/a.md'].map((s) => p(`tree/${s}`)));
    const md: string[] = [];
    for await (const e of share.walk(p('tree'), { descend: (d) => d.name !== 'skip', include: (e) => e.name.endsWith('.md') })) md.push(e.path);
    assert.deepEqual(md, [p('tree/x/y/a.md')]);
  });

  test('200 concurrent reads share one connection', async () => {
    await share.mkdir(p('conc'));
    const files = Array.from({ length: 200 }, (_, i) => ({ name: p(`conc/f${i}.txt`), body: `file ${i} ${'z'.repeat(i)}` }));
    await Promise.all(files.map((f) => share.writeFile(f.name, f.body)));
    const port = await share.localPort();
    const bodies = await Promise.all(files.map((f) => share.readFile(f.name)));
    bodies.forEach((b, i) => assert.equal(b.toString(), files[i]!.body));
    assert.equal(client.pool.size, 1);
    assert.equal(await share.localPort(), port);
  });

  test('getSecurity returns the owner, group and DACL that smbcacls set', async () => {
    await share.mkdir(p('acl'));
    const anna = env.users['anna']!.sid;
    const ben = env.users['ben']!.sid;
    const admins = env.groups[env.admin.group]!;
    const path = p('acl');
    smbcacls('schule', path, ['-S', `ACL:${admins}:ALLOWED/OI|CI/FULL,ACL:${anna}:ALLOWED/OI|CI/READ,ACL:${ben}:DENIED/0x0/0x00000001`]);
    const expected = smbcacls('schule', path, ['--numeric']);
    const sd = await share.getSecurity(path);
    const field = (name: string): string => new RegExp(`^${name}:(.*)$`, 'm').exec(expected)![1]!;
    assert.equal(sd.owner, field('OWNER'));
    assert.equal(sd.group, field('GROUP'));
    const aces = [...expected.matchAll(/^ACL:(S-[\d-]+):(\d+)\/0x([0-9a-f]+)\/0x([0-9a-f]+)$/gm)].map((m) => ({
      sid: m[1],
      type: Number(m[2]),
      flags: parseInt(m[3]!, 16),
      mask: parseInt(m[4]!, 16),
    }));
    assert.equal(aces.length, 3);
    assert.ok(aces.every((a) => [admins, anna, ben].includes(a.sid!)));
    assert.deepEqual(sd.dacl?.aces, aces);
    assert.ok(sd.dacl!.aces.some((a) => a.type === AceType.ACCESS_DENIED && a.sid === ben && a.mask === 1));
    assert.equal(grantsRead(sd, [anna, env.groups['Lehrer']!]), true);
    assert.equal(grantsRead(sd, [ben, env.groups['Lehrer']!]), false);
    assert.equal(grantsRead(sd, env.users['carla']!.sid), false);
    const access = readAccessSids(sd);
    assert.deepEqual(access.allow.sort(), [admins, anna].sort());
    assert.deepEqual(access.deny, [ben]);
  });

  test('a user without rights gets the typed access-denied error', async () => {
    await share.mkdir(p('geheim'));
    await share.writeFile(p('geheim/noten.txt'), 'vertraulich');
    const admins = env.groups[env.admin.group]!;
    smbcacls('schule', p('geheim'), ['-S', `ACL:${admins}:ALLOWED/OI|CI/FULL`]);
    smbcacls('schule', p('geheim/noten.txt'), ['-S', `ACL:${admins}:ALLOWED/0x0/FULL`]);
    const carla = shareFor(client, userAccount('carla'));
    await assert.rejects(carla.readFile(p('geheim/noten.txt')), (err: { code: string; status: number }) => {
      assert.equal(err.code, 'ACCESS_DENIED');
      assert.equal(err.status, 0xc0000022);
      return true;
    });
    await assert.rejects(carla.writeFile(p('carla-was-here.txt'), 'x'), { code: 'ACCESS_DENIED' });
    const denied: string[] = [];
    const seen: string[] = [];
    const onError = (err: unknown, d: string): void => {
      assert.equal((err as { code: string }).code, 'ACCESS_DENIED');
      denied.push(d);
    };
    for await (const e of carla.walk(dir, { onError })) seen.push(e.path);
    assert.ok(denied.includes(p('geheim')), 'the unreadable folder is reported and skipped');
    assert.ok(seen.includes(p('geheim')) && seen.includes(p('stat.txt')));
    await assert.rejects(async () => {
      for await (const e of carla.walk(dir)) void e;
    }, { code: 'ACCESS_DENIED' });
    assert.equal((await carla.readFile('Aushang.txt')).toString(), readFileSync(join(shareDir('schule'), 'Aushang.txt'), 'utf8'));
  });

  test('getSecurityOfEach answers in one round trip what getSecurity answers for each path, a refusal or a missing file as that path\'s own', async () => {
    await share.mkdir(p('each'));
    for (const name of ['open.md', 'closed.md', 'open2.md']) await share.writeFile(p(`each/${name}`), name);
    smbcacls('schule', p('each/closed.md'), ['-S', `ACL:${env.groups[env.admin.group]!}:ALLOWED/0x0/FULL`]);
    const carla = shareFor(client, userAccount('carla'));
    const paths = ['open.md', 'closed.md', 'missing.md', 'open2.md'].map((name) => p(`each/${name}`));
    const each = await carla.getSecurityOfEach(paths);
    assert.deepEqual(each[0], await carla.getSecurity(paths[0]!));
    assert.equal((each[1] as { code?: string }).code, 'ACCESS_DENIED');
    await assert.rejects(carla.getSecurity(paths[1]!), { code: 'ACCESS_DENIED' });
    assert.equal((each[2] as { code?: string }).code, 'NOT_FOUND');
    assert.deepEqual(each[3], await carla.getSecurity(paths[3]!));
  });

  test('a wrong password is a typed logon failure', async () => {
    const bad = shareFor(client, { user: 'anna', password: 'falsch' });
    await assert.rejects(bad.stat(''), { code: 'LOGON_FAILURE' });
  });
});

function shareDir(name: string): string {
  return env.smb.shares.find((s) => s.name === name)!.path;
}

describe('SMB facade on the encrypted share (verwaltung)', () => {
  const client = new SmbClient();
  const share = shareFor(client, env.admin, 'verwaltung');
  const dir = scratchName();

  after(async () => {
    await removeTree(share, dir).catch(() => undefined);
    await client.close();
  });

  test('reads, writes and lists through AES-encrypted transform frames', async () => {
    const onDisk = readFileSync(join(shareDir('verwaltung'), 'Haushalt', 'Budget 2026.csv'));
    assert.ok((await share.readFile('Haushalt/Budget 2026.csv')).equals(onDisk));
    await share.mkdir(dir);
    const data = randomBytes(2 * 1024 * 1024);
    await share.writeFile(`${dir}/enc.bin`, data);
    assert.ok((await share.readFile(`${dir}/enc.bin`)).equals(data));
    assert.deepEqual((await share.readdir(dir)).map((e) => e.name), ['enc.bin']);
    const tree = await share.withTree(async (t) => t);
    assert.equal(tree.encrypted, true);
  });
});

describe('connection pool', () => {
  test('one endpoint per (server, credentials); idle endpoints are logged off and evicted', async () => {
    const client = new SmbClient(new SmbPool({ idleTimeoutMs: 300 }));
    try {
      const a = shareFor(client, env.admin);
      const b = shareFor(client, env.admin, 'verwaltung');
      await Promise.all([a.stat(''), b.stat('')]);
      assert.equal(client.pool.size, 1, 'both shares use the same session');
      // Held, the admin's endpoint is not idle: a slow logon of anna's under load cannot let it be evicted meanwhile.
      const endOfUse = a.session().hold();
      await shareFor(client, userAccount('anna')).stat('');
      assert.equal(client.pool.size, 2);
      endOfUse();
      await waitFor(async () => client.pool.size === 0, 10_000); // eviction runs every second
      assert.equal((await a.stat('')).isDirectory, true, 'an evicted share reconnects on use');
    } finally {
      await client.close();
    }
  });

  test('claimed sessions are bounded per account and in total: idle ones closed least recently used first, held or busy ones never (TOO_MANY_SESSIONS)', async () => {
    const client = new SmbClient(new SmbPool({ maxConnectionsPerAccount: 1, maxConnections: 2 }));
    const logOn = async (share: SmbShare, account: string) => {
      await share.session().claim(account);
      await share.logon((setup) => setup());
    };
    const releases: (() => void)[] = [];
    /** Keeps an operation of the share's session running (it cannot be closed for another) until the test ends. */
    const busy = (share: SmbShare) => new Promise<void>((started) => {
      void share.withTree(() => new Promise<void>((release) => { releases.push(release); started(); }));
    });
    const isTooMany = (bound: RegExp) => (err: unknown) => err instanceof SmbError && err.code === 'TOO_MANY_SESSIONS' && bound.test(err.message);
    try {
      const [anna, ben, carla, dora] = ['anna', 'ben', 'carla', 'dora'].map((name) => shareFor(client, userAccount(name))) as [SmbShare, SmbShare, SmbShare, SmbShare];
      await logOn(anna, 'one');
      const annas = anna.session();
      assert.ok(annas instanceof Endpoint);
      // The server holds anna's session until it has logged it off: ben's claim waits for that, or the account would
      // have two sessions there for a moment.
      const happened: string[] = [];
      const logOff = annas.close.bind(annas);
      annas.close = async () => {
        await new Promise((later) => setTimeout(later, 200));
        await logOff();
        happened.push('anna logged off');
      };
      await ben.session().claim('one');
      happened.push('ben claimed');
      assert.deepEqual(happened, ['anna logged off', 'ben claimed']);
      await ben.logon((setup) => setup());
      assert.notEqual(anna.session(), annas, "anna's idle session left the pool to make room for ben's under the same account");
      await busy(ben);
      await assert.rejects(carla.session().claim('one'), isTooMany(/this account has 1 SMB connections/));
      await logOn(carla, 'two');
      const carlas = carla.session();
      await logOn(dora, 'three');
      assert.notEqual(carla.session(), carlas, "the idle session (carla's) made room under the total; the busy one stays");
      await busy(dora);
      await assert.rejects(carla.session().claim('two'), isTooMany(/the service has 2 SMB connections/));
      assert.deepEqual(client.pool.refusedClaims, { account: 1, total: 1 });
      assert.equal((await ben.stat('')).isDirectory, true, 'the busy sessions serve on');
      // Between its operations a request holds its session: not idle, so not closed to make room.
      for (const release of releases.splice(0)) release();
      await new Promise((ended) => setImmediate(ended)); // the released operations end
      const bens = ben.session();
      const endOfRequest = bens.hold();
      await assert.rejects(carla.session().claim('one'), isTooMany(/this account has 1 SMB connections/));
      endOfRequest();
      await carla.session().claim('one');
      assert.notEqual(ben.session(), bens, "once the request ended, ben's idle session made room");
    } finally {
      for (const release of releases) release();
      await client.close();
    }
  });

  test('connectionsPerServer spreads operations over several connections', async () => {
    const client = new SmbClient(new SmbPool({ connectionsPerServer: 3 }));
    try {
      const share = shareFor(client, env.admin);
      const listings = await Promise.all(Array.from({ length: 12 }, () => share.readdir('')));
      assert.ok(listings.every((l) => l.some((e) => e.name === 'Aushang.txt')));
      const sockets = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${env.smb.port} )`], { encoding: 'utf8' });
      const ours = sockets.split('\n').filter((l) => l.includes(`pid=${process.pid},`));
      assert.equal(ours.length, 3, sockets);
    } finally {
      await client.close();
    }
  });
});
