// Writes through the proxy are the writes the file server allows that user, with the effect they have over SMB. A
// save is an in-place write through a handle the editor opens on the page: owner, DACL (protected flag included),
// file id and creation time stay, and who may read the page or change its rights is what it was. A PUT that
// creates a file and a COPY inherit from the folder, a MOVE keeps the file's own ACL. In a hand-in folder (pupils
// may add files and own what they add) a pupil cannot overwrite, replace, copy over or delete the teacher's
// worksheet, as over SMB. The file server decides every verdict: the SD is read back over SMB as the DC
// Administrator, and the same users try the same operations over SMB.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Access, Disposition, SdControl, SmbClient, type SecurityDescriptor, type SmbShare } from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { smbcacls } from '../smb/testbed.js';
import { DavClient, account } from './dav-client.js';

/** FILE_GENERIC_READ | FILE_GENERIC_WRITE | DELETE | EXECUTE: "Change" in the Windows dialog. */
const CHANGE = '0x1301bf';
/** Change without READ_CONTROL: the editor may write the page but not read its access rights. */
const CHANGE_WITHOUT_READ_CONTROL = '0x1101bf';

describe('WebDAV writes are what the file server allows, with the effect they have over SMB', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let anna: DavClient;
  let carla: DavClient;
  const smb = new SmbClient();
  let admin: SmbShare;
  let carlaSmb: SmbShare;
  let annaSmb: SmbShare;
  const dir = `_writes-${randomBytes(4).toString('hex')}`;
  /** A pupils' wiki: pupils (Schueler) and teachers (Lehrer) may change everything in it. */
  const wiki = `${dir}/.wiki`;
  let sid: { lehrer: string; schueler: string; carla: string; anna: string; indexer: string };
  /** Every ACL here lets the indexer read, so that index passes of tests running alongside see no errors. */
  const indexerReads = (inherit = ''): string => `(A;${inherit};0x120089;;;${sid.indexer})`;

  const setSddl = (path: string, sddl: string): string => smbcacls('schule', path, ['--sddl', '--set', sddl]);
  /** A page only teachers (and the indexer) may read: protected, so nothing of the pupils' folder ACL reaches it. */
  const teachersOnly = (): string => `D:P(D;;0x1;;;${sid.carla})(A;;FA;;;BA)(A;;${CHANGE};;;${sid.lehrer})${indexerReads()}`;
  const leftovers = async (): Promise<string[]> => (await admin.readdir(wiki)).map((e) => e.name).filter((n) => n.endsWith('.tmp'));

  async function pupilRefused(path: string): Promise<void> {
    await assert.rejects(carlaSmb.readFile(path), { code: 'ACCESS_DENIED' }, `the file server must refuse ${path} to the pupil`);
    assert.equal((await carla.request('GET', path)).status, 403);
  }

  async function protectedPage(name: string): Promise<{ path: string; sd: SecurityDescriptor }> {
    const path = `${wiki}/${name}`;
    assert.equal((await anna.put(path, '# Klausur\n\nAufgabe 1\n')).status, 201);
    setSddl(path, teachersOnly());
    const sd = await admin.getSecurity(path);
    assert.ok(sd.control & SdControl.DACL_PROTECTED);
    await pupilRefused(path);
    return { path, sd };
  }

  before(async () => {
    env = await readTestbedEnv();
    sid = { lehrer: env.groups['Lehrer']!, schueler: env.groups['Schueler']!, carla: env.users['carla']!.sid, anna: env.users['anna']!.sid,
      indexer: env.users[env.indexer.user]!.sid };
    service = await startService({ smb: { shares: [{ name: 'schule' }] } });
    anna = new DavClient(service, account(env, 'anna'));
    carla = new DavClient(service, account(env, 'carla'));
    const at = (a: { user: string; password: string }): SmbShare => testbedShare(smb, env, a, 'schule');
    admin = at(env.dc_admin);
    carlaSmb = at(account(env, 'carla'));
    annaSmb = at(account(env, 'anna'));
    await admin.mkdir(dir);
    setSddl(dir, `D:PAI(A;OICI;FA;;;BA)(A;OICI;${CHANGE};;;${sid.lehrer})(A;OICI;${CHANGE};;;${sid.schueler})${indexerReads('OICI')}`);
    await admin.mkdir(wiki);
  });
  after(async () => {
    // The service first: its change watch holds the .wiki folder open, which would keep it from going at once.
    await service.stop();
    try {
      for await (const e of admin.walk(dir)) if (!e.isDirectory) await admin.unlink(e.path);
      const folders: string[] = [];
      for await (const e of admin.walk(dir)) folders.push(e.path);
      for (const f of folders.sort((a, b) => b.length - a.length)) await admin.rmdir(f);
      await admin.rmdir(dir);
    } finally {
      await smb.close();
    }
  });

  it('a PUT over a protected page writes in place: owner, DACL, file id and creation time stay, the pupil stays refused', async () => {
    const { path, sd } = await protectedPage('klausur.md');
    const before = await admin.stat(path);
    const res = await anna.put(path, '# Klausur\n\nAufgabe 1 und 2\n');
    assert.equal(res.status, 204);
    assert.deepEqual(await admin.getSecurity(path), sd, 'owner, group, DACL and its flags as they were');
    const after = await admin.stat(path);
    assert.deepEqual([after.fileId, after.birthtime.getTime()], [before.fileId, before.birthtime.getTime()], 'the same file');
    await pupilRefused(path);
    assert.equal((await anna.text(path)).body, '# Klausur\n\nAufgabe 1 und 2\n');
    assert.deepEqual(await leftovers(), []);
  });

  it('a conditional PUT (If-Match) over a protected page keeps its DACL too', async () => {
    const { path, sd } = await protectedPage('bewertung.md');
    const { etag } = await anna.text(path);
    assert.equal((await anna.put(path, '# Bewertung\n', { 'if-match': etag! })).status, 204);
    assert.deepEqual(await admin.getSecurity(path), sd);
    await pupilRefused(path);
  });

  it('a PUT that creates a page inherits from its folder', async () => {
    const path = `${wiki}/neu.md`;
    assert.equal((await anna.put(path, '# Neu\n')).status, 201);
    const sd = await admin.getSecurity(path);
    assert.equal(sd.control & SdControl.DACL_PROTECTED, 0);
    assert.ok(sd.dacl!.aces.some((a) => a.sid === sid.schueler), 'the pupils of the folder ACL');
    assert.equal((await carlaSmb.readFile(path)).toString(), '# Neu\n');
  });

  it('a page with a NULL DACL (set with SmbShare.setSecurity) keeps it through a PUT', async () => {
    const path = `${wiki}/offen.md`;
    assert.equal((await anna.put(path, 'alt')).status, 201);
    await admin.setSecurity(path, { revision: 1, control: SdControl.DACL_PRESENT, owner: null, group: null, sacl: null, dacl: null });
    assert.equal((await admin.getSecurity(path)).dacl, null);
    assert.equal((await anna.put(path, 'neu')).status, 204);
    const sd = await admin.getSecurity(path);
    assert.equal(sd.dacl, null);
    assert.equal(sd.control & SdControl.DACL_PRESENT, SdControl.DACL_PRESENT);
    assert.equal((await carlaSmb.readFile(path)).toString(), 'neu');
  });

  it('an editor who may change a page but not its access rights saves it and gains no right over them', async () => {
    const path = `${wiki}/verdeckt.md`;
    await admin.writeFile(path, 'alt'); // not anna's: an owner may always read and change the DACL
    setSddl(path, `D:P(A;;FA;;;BA)(A;;${CHANGE_WITHOUT_READ_CONTROL};;;${sid.lehrer})${indexerReads()}`);
    const sd = await admin.getSecurity(path);
    assert.equal((await anna.put(path, 'neu')).status, 204, 'over SMB the write is allowed: so through the proxy');
    assert.equal((await admin.readFile(path)).toString(), 'neu');
    assert.deepEqual(await admin.getSecurity(path), sd, 'the owner is not the editor');
    await assert.rejects(annaSmb.setSecurity(path, sd), { code: 'ACCESS_DENIED' }, 'the editor still may not change who reads the page');
  });

  /**
   * A hand-in folder: pupils may list it and add files (FILE_ADD_FILE), read the files in it and own what they add;
   * in it a teacher's worksheet. Checks the file server's own verdicts for the pupil over SMB first: writing and
   * deleting the worksheet are refused.
   */
  async function handInFolder(name: string): Promise<{ folder: string; sheet: string; unchanged: () => Promise<void> }> {
    const folder = `${dir}/${name}`;
    await admin.mkdir(folder);
    setSddl(folder, `D:P(A;OICI;FA;;;BA)(A;OICI;${CHANGE};;;${sid.lehrer})(A;;0x1200ab;;;${sid.schueler})` +
      `(A;OIIO;0x120089;;;${sid.schueler})(A;OIIO;FA;;;CO)${indexerReads('OICI')}`);
    const sheet = `${folder}/arbeitsblatt.txt`;
    await admin.writeFile(sheet, 'Aufgabe: Bruchrechnung');
    const sd = await admin.getSecurity(sheet);
    await assert.rejects(carlaSmb.checkAccess(sheet, Access.FILE_WRITE_DATA), { code: 'ACCESS_DENIED' });
    await assert.rejects(carlaSmb.unlink(sheet), { code: 'ACCESS_DENIED' });
    const unchanged = async (): Promise<void> => {
      assert.equal((await admin.readFile(sheet)).toString(), 'Aufgabe: Bruchrechnung');
      assert.deepEqual(await admin.getSecurity(sheet), sd, 'the worksheet keeps its owner and DACL');
    };
    return { folder, sheet, unchanged };
  }

  it('a pupil in a hand-in folder adds her own file but cannot overwrite the worksheet', async () => {
    const { folder, sheet, unchanged } = await handInFolder('abgabe-put');
    assert.equal((await carla.put(sheet, 'von Carla überschrieben')).status, 403, 'PUT over the worksheet');
    await unchanged();
    assert.equal((await carla.put(`${folder}/carla.txt`, 'meine Lösung')).status, 201, 'adding her own file');
    assert.equal((await admin.getSecurity(`${folder}/carla.txt`)).owner, sid.carla);
  });

  it('a pupil in a hand-in folder cannot replace the worksheet by MOVE or COPY, nor delete it', async () => {
    const { folder, sheet, unchanged } = await handInFolder('abgabe-move');
    const own = `${folder}/carla.txt`;
    await carlaSmb.writeFile(own, 'meine Lösung');
    const overwrite = { headers: { destination: carla.url(sheet), overwrite: 'T' } };
    assert.equal((await carla.request('MOVE', own, overwrite)).status, 403, 'MOVE over the worksheet');
    await unchanged();
    assert.equal((await carla.request('COPY', own, overwrite)).status, 403, 'COPY over the worksheet');
    assert.equal((await carla.request('DELETE', sheet)).status, 403, 'DELETE of the worksheet');
    await unchanged();
    assert.equal((await admin.readFile(own)).toString(), 'meine Lösung', 'her file is still hers, where it was');
  });

  it('COPY inherits from the destination folder, as a copy does on Windows', async () => {
    const { path } = await protectedPage('vorlage.md');
    const res = await anna.request('COPY', path, { headers: { destination: anna.url(`${wiki}/kopie.md`) } });
    assert.equal(res.status, 201);
    const copy = await admin.getSecurity(`${wiki}/kopie.md`);
    assert.equal(copy.control & SdControl.DACL_PROTECTED, 0);
    assert.ok(copy.dacl!.aces.some((a) => a.sid === sid.schueler));
    assert.equal((await carlaSmb.readFile(`${wiki}/kopie.md`)).toString(), '# Klausur\n\nAufgabe 1\n');
  });

  it('MOVE within the share keeps the ACL', async () => {
    const { path, sd } = await protectedPage('verschieben.md');
    await admin.mkdir(`${dir}/ablage`);
    const to = `${dir}/ablage/verschoben.md`;
    const res = await anna.request('MOVE', path, { headers: { destination: anna.url(to) } });
    assert.equal(res.status, 201);
    const moved = await admin.getSecurity(to);
    assert.deepEqual(moved.dacl, sd.dacl);
    assert.equal(moved.control & SdControl.DACL_PROTECTED, SdControl.DACL_PROTECTED);
    await pupilRefused(to);
  });

  it('SmbShare.writeFile keeps the DACL too, also when it has to wait for a reader that excludes writers', async () => {
    const { path, sd } = await protectedPage('wartend.md');
    // A reader that does not share write access: the write waits until it closes (Windows share modes).
    const reader = await admin.withTree((tree) =>
      FileHandle.open(tree, { name: path.replaceAll('/', '\\'), desiredAccess: Access.GENERIC_READ, disposition: Disposition.OPEN, shareAccess: 1 }),
    );
    const released = new Promise((resolve) => setTimeout(resolve, 300)).then(() => reader.close());
    await annaSmb.writeFile(path, 'nach dem Warten');
    await released;
    assert.equal((await admin.readFile(path)).toString(), 'nach dem Warten');
    assert.deepEqual(await admin.getSecurity(path), sd);
    await pupilRefused(path);
  });
});
