// A resource is its file, not its spelling (issue 40, cases 5 and 6). Samba gives every long name an 8.3 short
// name and opens a file by either; the proxy's locks, the wiki's layout rules and the same-resource check of COPY
// know a file by its long name. So a short name is refused with 400 in the request path and the Destination of
// every method, before anything changes; a long name of the same shape is served, and a letter case other than the
// file's meets the same locks and checks.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { couldBeShortName } from '../../../src/webdav/short-names.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { runSambaClient, testbedShare } from '../../support/smb-logons.js';
import { removeTree } from '../smb/testbed.js';
import { DavClient, account } from './dav-client.js';

const LOCK_BODY = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
const PLAN = 'Jahresplanung-Klassenfahrt.txt';
const PLAN_TEXT = 'Klassenfahrt nach Berlin, 12. bis 16. Mai\n';

async function errorOf(res: Response): Promise<{ error: string; message: string }> {
  return (await res.json()) as { error: string; message: string };
}

describe('WebDAV and 8.3 short names', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let dav: DavClient;
  let smb: SmbShare;
  const client = new SmbClient();
  const dir = `_davshort-${randomBytes(4).toString('hex')}`;

  /** The short name Samba gives `path`, as its own client lists it (`allinfo` prints it as the altname). */
  async function shortNameOf(path: string): Promise<string> {
    const { stdout } = await runSambaClient('smbclient', env, 'schule', account(env, 'anna'), ['-c', `allinfo "${path.replaceAll('/', '\\')}"`]);
    const altname = /^altname: (.+)$/m.exec(stdout)?.[1];
    const long = path.split('/').pop()!;
    assert.ok(altname && altname !== long && couldBeShortName(altname), `the file server gives ${path} a short name (allinfo: ${stdout})`);
    return altname;
  }

  before(async () => {
    env = await readTestbedEnv();
    service = await startService();
    dav = new DavClient(service, account(env, 'anna'));
    smb = testbedShare(client, env, account(env, 'anna'), 'schule');
    await smb.mkdir(`${dir}/.wiki`, { recursive: true });
  });
  // Over SMB, after the service: a lock a failed test left would refuse a WebDAV DELETE.
  after(async () => {
    await service.stop();
    await removeTree(smb, dir);
    await client.close();
  });

  it('refuses COPY and MOVE of a file onto its own short name with 400, and the file stays', async () => {
    await smb.writeFile(`${dir}/${PLAN}`, PLAN_TEXT);
    const short = await shortNameOf(`${dir}/${PLAN}`);
    for (const method of ['COPY', 'MOVE']) {
      const res = await dav.request(method, `${dir}/${PLAN}`, { headers: { destination: dav.url(`${dir}/${short}`), overwrite: 'T' } });
      assert.equal(res.status, 400, method);
      const { error, message } = await errorOf(res);
      assert.equal(error, 'short_name');
      assert.ok(message.includes(`'${short}'`) && message.includes(`'${PLAN}'`), message);
    }
    assert.equal((await smb.readFile(`${dir}/${PLAN}`)).toString(), PLAN_TEXT);
  });

  it('refuses a PUT without the lock token through the short name of a locked file with 400, and the file stays', async () => {
    const file = `${dir}/Gesperrt-Elternbrief.txt`;
    await smb.writeFile(file, 'Entwurf\n');
    const short = await shortNameOf(file);
    const lock = await dav.request('LOCK', file, { headers: { depth: '0', timeout: 'Second-600' }, body: LOCK_BODY });
    assert.equal(lock.status, 200);
    try {
      const res = await dav.put(`${dir}/${short}`, 'überschrieben');
      assert.equal(res.status, 400);
      assert.equal((await errorOf(res)).error, 'short_name');
      assert.equal((await dav.put(file, 'überschrieben')).status, 423, 'the long name meets the lock');
      assert.equal((await smb.readFile(file)).toString(), 'Entwurf\n');
    } finally {
      assert.equal((await dav.request('UNLOCK', file, { headers: { 'lock-token': lock.headers.get('lock-token')! } })).status, 204);
    }
  });

  it('refuses a path through the short name of .wiki with 400, so the layout rules hold', async () => {
    const wiki = await shortNameOf(`${dir}/.wiki`);
    const png = await dav.put(`${dir}/${wiki}/bild.png`, 'png');
    assert.equal(png.status, 400);
    const { error, message } = await errorOf(png);
    assert.equal(error, 'short_name');
    assert.ok(message.includes(`'${dir}/.wiki/bild.png'`), message);
    assert.equal((await dav.request('MKCOL', `${dir}/${wiki}/unterordner`)).status, 400);
    await smb.writeFile(`${dir}/notiz.txt`, 'Notiz');
    assert.equal((await dav.request('COPY', `${dir}/notiz.txt`, { headers: { destination: dav.url(`${dir}/${wiki}/notiz.txt`) } })).status, 400);
    assert.deepEqual((await smb.readdir(`${dir}/.wiki`)).map((e) => e.name), []);
  });

  it('answers every method through a short name 400 and changes nothing', async () => {
    await smb.writeFile(`${dir}/${PLAN}`, PLAN_TEXT);
    const short = await shortNameOf(`${dir}/${PLAN}`);
    const before = (await smb.readdir(dir)).map((e) => `${e.name}:${e.size}:${e.mtimeMs}`).sort();
    const attempts: [string, { headers?: Record<string, string>; body?: string }][] = [
      ['GET', {}], ['HEAD', {}], ['PUT', { body: 'neu' }], ['DELETE', {}], ['PROPFIND', { headers: { depth: '0' } }],
      ['PROPPATCH', { body: '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:n xmlns:x="urn:x">1</x:n></D:prop></D:set></D:propertyupdate>' }],
      ['MKCOL', {}], ['LOCK', { body: LOCK_BODY }], ['UNLOCK', { headers: { 'lock-token': '<urn:uuid:00000000-0000-0000-0000-000000000000>' } }],
      ['COPY', { headers: { destination: dav.url(`${dir}/kopie.txt`) } }], ['MOVE', { headers: { destination: dav.url(`${dir}/verschoben.txt`) } }],
    ];
    const answers = [];
    for (const [method, init] of attempts) answers.push(`${method} ${(await dav.request(method, `${dir}/${short}`, init)).status}`);
    assert.deepEqual(answers, attempts.map(([method]) => `${method} 400`));
    assert.deepEqual((await smb.readdir(dir)).map((e) => `${e.name}:${e.size}:${e.mtimeMs}`).sort(), before);
  });

  it('serves a file whose own long name has the shape of a short name', async () => {
    await smb.writeFile(`${dir}/AB~1.TXT`, 'echt');
    const got = await dav.text(`${dir}/ab~1.txt`);
    assert.deepEqual([got.status, got.body], [200, 'echt']);
    assert.equal((await dav.put(`${dir}/AB~1.TXT`, 'neu')).status, 204);
    assert.equal((await dav.put(`${dir}/NEU~1.TXT`, 'neu')).status, 201, 'a name nothing has yet');
    assert.equal((await smb.readFile(`${dir}/AB~1.TXT`)).toString(), 'neu');
  });

  it('holds locks and the same-resource check under another letter case', async () => {
    const file = `${dir}/Klassenliste.txt`;
    await smb.writeFile(file, 'Liste\n');
    const lock = await dav.request('LOCK', file, { headers: { depth: '0', timeout: 'Second-600' }, body: LOCK_BODY });
    assert.equal(lock.status, 200);
    try {
      assert.equal((await dav.put(`${dir}/KLASSENLISTE.TXT`, 'überschrieben')).status, 423);
    } finally {
      assert.equal((await dav.request('UNLOCK', file, { headers: { 'lock-token': lock.headers.get('lock-token')! } })).status, 204);
    }
    const copy = await dav.request('COPY', file, { headers: { destination: dav.url(`${dir}/klassenliste.TXT`), overwrite: 'T' } });
    assert.equal(copy.status, 403);
    assert.equal((await smb.readFile(file)).toString(), 'Liste\n');
  });
});
