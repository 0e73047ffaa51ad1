// Dead properties and depth-infinity locks live in dav-state, beside the
// share, so they reach exactly as far as the file server's rights of the user
// who asks: a PROPFIND lists a member's dead properties only to a user the
// file server grants FILE_READ_EA on it (what reading its extended attributes
// over SMB needs), and a depth-infinity LOCK needs the write right on every
// member it covers, so that a pupil who may only hand in cannot block the
// teacher's worksheet. Built in the write oracle's hand-in folder.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Access, AceFlags, SmbClient, SmbError, type SmbShare } from '../../../src/smb/index.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { testbedShare } from '../../support/smb-logons.js';
import { DavClient, account } from './dav-client.js';
import { allow, buildTree, Mask, removeOnDisk, scenario, setAcl, type Scenario } from './write-oracle/fixture.js';

const SHARE = 'schule';
/** The members a depth-infinity lock may cover here (webdav.locks.max_deep_lock_members): the hand-in folder's three files. */
const MAX_MEMBERS = 3;

const lockBody = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
const setNote = (note: string) =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:s="urn:schule"><D:set><D:prop><s:note>${note}</s:note></D:prop></D:set></D:propertyupdate>`;
const PROPFIND_NOTE = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><s:note xmlns:s="urn:schule"/></D:prop></D:propfind>';
const PROPFIND_ALLPROP = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>';
const PROPFIND_PROPNAME = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>';

/** The <response> elements of a multistatus body by the last segment of their href. */
function responsesByName(body: string): Map<string, string> {
  const responses = new Map<string, string>();
  for (const [response] of body.matchAll(/<D:response>.*?<\/D:response>/gs)) {
    const href = /<D:href>([^<]*)<\/D:href>/.exec(response)![1]!;
    responses.set(decodeURIComponent(href.replace(/\/$/, '').split('/').pop()!), response);
  }
  return responses;
}

async function errorOf(res: Response): Promise<{ error: string; message: string }> {
  return (await res.json()) as { error: string; message: string };
}

/** The file server's verdict on `access` to `path` for the user of `share`: granted, or the refusal's code. */
async function smbVerdict(share: SmbShare, path: string, access: number): Promise<string> {
  try {
    await share.checkAccess(path, access);
    return 'granted';
  } catch (err) {
    if (err instanceof SmbError) return err.code;
    throw err;
  }
}

describe('dead properties and depth-infinity locks reach only as far as the file server lets the user', () => {
  const smb = new SmbClient();
  const root = `_davreach-${randomBytes(4).toString('hex')}`;
  const handIn = `${root}/abgabe`;
  const collection = `${root}/sammlung`;
  let env: TestbedEnv;
  let service: RunningService;
  let ben: DavClient;
  let carla: DavClient;
  let carlaOverSmb: SmbShare;
  let benOverSmb: SmbShare;

  before(async () => {
    env = await readTestbedEnv();
    const as = (name: string): SmbShare => testbedShare(smb, env, name === 'admin' ? env.dc_admin : account(env, name), SHARE);
    carlaOverSmb = as('carla');
    benOverSmb = as('ben');
    // The write oracle's hand-in folder (pupils read and add files, teachers full) with 'Create folders' for pupils
    // too, as Windows' 'Write' permission grants both (with FILE_ADD_FILE alone, the folder's own right refuses a
    // pupil's lock already); ben's worksheet (pupils read it), carla's hand-in (hers in full), and the teachers'
    // marks, which pupils see (their attributes: name, size, times) but may not open.
    const fixture = scenario(env);
    const { acl } = fixture.folders.find((f) => f.name === 'abgabe')!;
    assert.ok('prepend' in acl);
    const setups: Scenario = {
      folders: [
        { name: 'abgabe', setup: 'hand-in folder: pupils add files and folders', acl: { prepend: [...acl.prepend, allow(env.groups['Schueler']!, Access.FILE_ADD_SUBDIRECTORY)] } },
        { name: 'sammlung', setup: 'teachers full', acl: { prepend: [allow(env.groups['Lehrer']!, Mask.full, AceFlags.OBJECT_INHERIT | AceFlags.CONTAINER_INHERIT)] } },
      ],
      files: [
        ...fixture.files.filter((f) => f.path.startsWith('abgabe/')),
        { path: 'abgabe/bewertung.txt', setup: 'the teachers\' marks: teachers only', acl: { protect: [allow(env.groups['Lehrer']!, Mask.modify), allow(env.groups['Schueler']!, Access.FILE_READ_ATTRIBUTES | Access.SYNCHRONIZE)] } },
      ],
    };
    const admin = as('admin');
    await buildTree(env, { admin, ben: benOverSmb, carla: carlaOverSmb }, root, setups, false);
    // In the teachers' collection, a drop box that ben may add to but not list, holding a file he cannot see.
    await admin.mkdir(`${collection}/eingang`);
    await setAcl(env, admin, `${collection}/eingang`, { protect: [allow(env.users['ben']!.sid, Mask.addFileOnly | Access.FILE_ADD_SUBDIRECTORY)] }, true);
    await admin.writeFile(`${collection}/eingang/von-anna.txt`, 'anna\n');
    service = await startService({ webdav: { locks: { max_deep_lock_members: MAX_MEMBERS } } });
    ben = new DavClient(service, account(env, 'ben'));
    carla = new DavClient(service, account(env, 'carla'));
    for (const name of ['bewertung.txt', 'arbeitsblatt.txt']) {
      assert.equal((await ben.request('PROPPATCH', `${handIn}/${name}`, { body: setNote(`note on ${name}`) })).status, 207, `ben annotates ${name}`);
    }
  });
  after(async () => {
    try {
      await service?.stop();
    } finally {
      await removeOnDisk(env, 'schule', root);
      await smb.close();
    }
  });

  it('lists a dead property in a folder only to a user the file server grants FILE_READ_EA on its file', async () => {
    // The file server's verdict: carla may not read the marks' extended attributes, ben may; the worksheet's both may.
    assert.equal((await carla.request('GET', `${handIn}/bewertung.txt`)).status, 403);
    assert.equal(await smbVerdict(carlaOverSmb, `${handIn}/bewertung.txt`, Access.FILE_READ_EA), 'ACCESS_DENIED');
    assert.equal(await smbVerdict(benOverSmb, `${handIn}/bewertung.txt`, Access.FILE_READ_EA), 'granted');
    assert.equal(await smbVerdict(carlaOverSmb, `${handIn}/arbeitsblatt.txt`, Access.FILE_READ_EA), 'granted');

    for (const body of [PROPFIND_ALLPROP, PROPFIND_PROPNAME]) {
      const listed = await carla.request('PROPFIND', handIn, { headers: { depth: '1' }, body });
      assert.equal(listed.status, 207);
      const responses = responsesByName(await listed.text());
      assert.ok(responses.has('bewertung.txt'), 'carla sees that the marks exist, as her SMB listing does');
      assert.doesNotMatch(responses.get('bewertung.txt')!, /note/, `no dead property of the marks for carla (${body})`);
      assert.match(responses.get('arbeitsblatt.txt')!, /note/, `the worksheet's note is listed (${body})`);
    }
    const named = responsesByName(await (await carla.request('PROPFIND', handIn, { headers: { depth: '1' }, body: PROPFIND_NOTE })).text());
    assert.doesNotMatch(named.get('bewertung.txt')!, /note on/);
    assert.match(named.get('bewertung.txt')!, /note[^>]*\/><\/D:prop><D:status>HTTP\/1\.1 404 /, 'a named dead property carla may not read is answered as missing');
    assert.match(named.get('arbeitsblatt.txt')!, /note on arbeitsblatt\.txt/);

    const teacher = responsesByName(await (await ben.request('PROPFIND', handIn, { headers: { depth: '1' }, body: PROPFIND_NOTE })).text());
    assert.match(teacher.get('bewertung.txt')!, /note on bewertung\.txt/, 'ben, whom the file server lets read them, sees them');
  });

  it('nor on the file itself (depth 0), which the user may see but not open', async () => {
    for (const body of [PROPFIND_ALLPROP, PROPFIND_NOTE]) {
      const itself = await carla.request('PROPFIND', `${handIn}/bewertung.txt`, { headers: { depth: '0' }, body });
      assert.equal(itself.status, 207, 'carla may read the attributes of the marks (FILE_READ_ATTRIBUTES)');
      assert.doesNotMatch(await itself.text(), /note on/, body);
    }
    const teacher = await ben.request('PROPFIND', `${handIn}/bewertung.txt`, { headers: { depth: '0' }, body: PROPFIND_NOTE });
    assert.match(await teacher.text(), /note on bewertung\.txt/);
  });

  it('refuses a depth-infinity LOCK to a pupil who may only add files; the teacher still saves, locks and unlocks', async () => {
    assert.equal(await smbVerdict(carlaOverSmb, `${handIn}/arbeitsblatt.txt`, Access.FILE_WRITE_DATA), 'ACCESS_DENIED', 'carla may not write the worksheet over SMB');
    const pupils = await carla.request('LOCK', handIn, { headers: { depth: 'infinity', timeout: 'Second-28800' }, body: lockBody });
    assert.equal(pupils.status, 403);
    const refusal = await errorOf(pupils);
    assert.equal(refusal.error, 'access_denied');
    assert.match(refusal.message, /abgabe\/(arbeitsblatt|bewertung)\.txt.*FILE_WRITE_DATA|FILE_WRITE_DATA.*abgabe\/(arbeitsblatt|bewertung)\.txt/, refusal.message);
    assert.equal((await ben.put(`${handIn}/arbeitsblatt.txt`, 'Aufgabe 1, korrigiert\n')).status, 204, 'nothing blocks the teacher\'s save');

    const teachers = await ben.request('LOCK', handIn, { headers: { depth: 'infinity' }, body: lockBody });
    assert.equal(teachers.status, 200, 'the teacher may write every member: he may lock them all');
    assert.equal((await carla.put(`${handIn}/abgabe-carla.txt`, 'meine Lösung\n')).status, 423, 'the teacher\'s lock holds');
    assert.equal((await ben.request('UNLOCK', handIn, { headers: { 'lock-token': teachers.headers.get('lock-token')! } })).status, 204);
    assert.equal((await carla.put(`${handIn}/abgabe-carla.txt`, 'meine Lösung\n')).status, 204);
  });

  it('refuses a depth-infinity LOCK over a folder the user may not list, naming it', async () => {
    assert.equal(await smbVerdict(benOverSmb, `${collection}/eingang`, Access.FILE_ADD_FILE | Access.FILE_ADD_SUBDIRECTORY), 'granted', 'ben may add to the drop box');
    assert.equal(await smbVerdict(benOverSmb, `${collection}/eingang`, Access.FILE_READ_DATA), 'ACCESS_DENIED', 'but not list it');
    const res = await ben.request('LOCK', collection, { headers: { depth: 'infinity' }, body: lockBody });
    assert.equal(res.status, 403);
    const refusal = await errorOf(res);
    assert.equal(refusal.error, 'access_denied');
    assert.match(refusal.message, /list it \(FILE_LIST_DIRECTORY\) on '[^']*sammlung\/eingang'/, refusal.message);
    const depth0 = await ben.request('LOCK', collection, { headers: { depth: '0' }, body: lockBody });
    assert.equal(depth0.status, 200, 'a depth-0 lock reserves the membership only, which the add right covers');
    assert.equal((await ben.request('UNLOCK', collection, { headers: { 'lock-token': depth0.headers.get('lock-token')! } })).status, 204);
  });

  it('refuses a depth-infinity LOCK that would cover more members than webdav.locks.max_deep_lock_members (403 lock_too_wide)', async () => {
    assert.equal((await carla.put(`${handIn}/abgabe-carla-2.txt`, 'Nachtrag\n')).status, 201, 'a fourth member');
    const res = await ben.request('LOCK', handIn, { headers: { depth: 'infinity' }, body: lockBody });
    assert.equal(res.status, 403);
    assert.equal((await errorOf(res)).error, 'lock_too_wide');
    const one = await ben.request('LOCK', `${handIn}/arbeitsblatt.txt`, { headers: { depth: '0' }, body: lockBody });
    assert.equal(one.status, 200, 'the members one by one');
    assert.equal((await ben.request('UNLOCK', `${handIn}/arbeitsblatt.txt`, { headers: { 'lock-token': one.headers.get('lock-token')! } })).status, 204);
  });
});
