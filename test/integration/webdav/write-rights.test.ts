// LOCK and PROPPATCH change state the file server never sees (locks and dead
// properties live in dav-state), so each asks the file server for the write
// right it stands for, as the requesting user: a pupil who may only read
// cannot lock or annotate, a teacher who may write can. The share root is
// never locked, and locks and dead properties are bounded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { startService, type RunningService } from '../../support/service.js';
import { DavClient, account } from './dav-client.js';

const lockBody = (owner = 'me') =>
  `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${owner}</D:owner></D:lockinfo>`;
const sharedLockBody = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
const setBody = (props: string) =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:s="urn:schule"><D:set><D:prop>${props}</D:prop></D:set></D:propertyupdate>`;
const removeBody = (name: string) =>
  `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:s="urn:schule"><D:remove><D:prop><s:${name}/></D:prop></D:remove></D:propertyupdate>`;

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

describe('WebDAV LOCK and PROPPATCH need the write right, asked of the file server', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let anna: DavClient;
  let carla: DavClient;
  const dir = `_davwrite-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({
      webdav: {
        locks: { max_per_user: 3, max_owner_size: '1KiB' },
        dead_properties: { max_per_resource: 5, max_resource_size: '2KiB', max_user_size: '8KiB', max_total_size: '11KiB' },
      },
    });
    // anna (Lehrer) may change the share root, carla (Schueler) may only read it: both see what anna creates.
    anna = new DavClient(service, account(env, 'anna'));
    carla = new DavClient(service, account(env, 'carla'));
    assert.equal(await anna.mkcol(dir), 201);
    assert.equal(await anna.mkcol(`${dir}/folder`), 201);
    for (const name of ['page.md', 'folder/inner.md', 'a.md', 'b.md', 'c.md', 'd.md', 'e.md']) {
      assert.equal((await anna.put(`${dir}/${name}`, 'x')).status, 201);
    }
  });
  after(async () => {
    await anna.remove(dir);
    await service.stop();
  });

  it('refuses a reader LOCK on files and folders it can read (depth 0 and infinity, new names too) with 403', async () => {
    assert.equal((await carla.request('GET', `${dir}/page.md`)).status, 200, 'carla can read');
    const attempts: [string, Record<string, string>][] = [
      [`${dir}/page.md`, { depth: '0' }],
      [`${dir}/folder`, { depth: 'infinity' }],
      [`${dir}/folder`, { depth: '0' }],
      [dir, {}],
      ['Aushang.txt', { depth: '0' }],
      [`${dir}/new.md`, { depth: '0' }],
    ];
    for (const [path, headers] of attempts) {
      const res = await carla.request('LOCK', path, { headers: { ...headers, timeout: 'Second-3600' }, body: lockBody() });
      assert.equal(res.status, 403, `LOCK ${path} ${JSON.stringify(headers)}`);
      assert.equal(await errorOf(res), 'access_denied');
    }
    assert.equal((await anna.request('GET', `${dir}/new.md`)).status, 404, 'the refused LOCK created no file');
    // Nothing holds a lock: anna writes freely.
    assert.equal((await anna.put(`${dir}/folder/inner.md`, 'still writable')).status, 204);
  });

  it('refuses a reader PROPPATCH on files and folders with 403 and stores nothing', async () => {
    for (const path of [`${dir}/page.md`, `${dir}/folder`, 'Aushang.txt']) {
      const res = await carla.request('PROPPATCH', path, { body: setBody('<s:note>pupil was here</s:note>') });
      assert.equal(res.status, 403, `PROPPATCH ${path}`);
      assert.equal(await errorOf(res), 'access_denied');
    }
    const found = await anna.request('PROPFIND', `${dir}/page.md`, {
      headers: { depth: '0' },
      body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><s:note xmlns:s="urn:schule"/></D:prop></D:propfind>',
    });
    assert.match(await found.text(), /HTTP\/1\.1 404/);
  });

  it('lets a writer LOCK (file, folder with depth infinity) and PROPPATCH', async () => {
    const file = await anna.request('LOCK', `${dir}/page.md`, { headers: { depth: '0' }, body: lockBody() });
    assert.equal(file.status, 200);
    const folder = await anna.request('LOCK', `${dir}/folder`, { headers: { depth: 'infinity' }, body: lockBody() });
    assert.equal(folder.status, 200);
    assert.equal((await new DavClient(service, account(env, 'ben')).put(`${dir}/folder/inner.md`, 'ben')).status, 423, 'the lock holds');
    for (const [res, path] of [[file, 'page.md'], [folder, 'folder']] as const) {
      assert.equal((await anna.request('UNLOCK', `${dir}/${path}`, { headers: { 'lock-token': res.headers.get('lock-token')! } })).status, 204);
    }
    assert.equal((await anna.request('PROPPATCH', `${dir}/folder`, { body: setBody('<s:fach>Mathe</s:fach>') })).status, 207);
    assert.equal((await anna.request('PROPPATCH', `${dir}/folder`, { body: removeBody('fach') })).status, 207);
  });

  it('refuses a LOCK on the share root with 403 share_root, even to a writer', async () => {
    for (const depth of ['0', 'infinity']) {
      const res = await anna.request('LOCK', '', { headers: { depth }, body: lockBody() });
      assert.equal(res.status, 403);
      assert.equal(await errorOf(res), 'share_root');
    }
  });

  it('keeps the dead properties below a folder a reader failed to DELETE', async () => {
    assert.equal((await anna.request('PROPPATCH', `${dir}/folder/inner.md`, { body: setBody('<s:keep>yes</s:keep>') })).status, 207);
    const denied = await carla.request('DELETE', `${dir}/folder`);
    assert.ok(denied.status === 207 || denied.status === 403, `DELETE by a reader: ${denied.status}`);
    const found = await anna.request('PROPFIND', `${dir}/folder/inner.md`, {
      headers: { depth: '0' },
      body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><s:keep xmlns:s="urn:schule"/></D:prop></D:propfind>',
    });
    assert.match(await found.text(), />yes<.*HTTP\/1\.1 200/s);
    assert.equal((await anna.request('PROPPATCH', `${dir}/folder/inner.md`, { body: removeBody('keep') })).status, 207);
  });

  it('bounds locks per user (403 too_many_locks), the lock owner size (403 lock_owner_too_large) and the LOCK body (413, unread)', async () => {
    const big = await anna.request('LOCK', `${dir}/a.md`, { headers: { depth: '0' }, body: lockBody('o'.repeat(2048)) });
    assert.equal(big.status, 403);
    assert.equal(await errorOf(big), 'lock_owner_too_large');
    // max_owner_size 1 KiB here: the body may take 64 KiB (lockBodyLimit's least), one byte more is not read.
    const overlong = lockBody('o'.repeat(64 * 1024));
    const huge = await anna.request('LOCK', `${dir}/a.md`, { headers: { depth: '0' }, body: overlong });
    assert.equal(huge.status, 413);
    assert.equal(await errorOf(huge), 'body_too_large');
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await anna.request('LOCK', `${dir}/a.md`, { headers: { depth: '0' }, body: sharedLockBody });
      assert.equal(res.status, 200);
      tokens.push(res.headers.get('lock-token')!);
    }
    const fourth = await anna.request('LOCK', `${dir}/b.md`, { headers: { depth: '0' }, body: lockBody() });
    assert.equal(fourth.status, 403);
    assert.equal(await errorOf(fourth), 'too_many_locks');
    const ben = await new DavClient(service, account(env, 'ben')).request('LOCK', `${dir}/b.md`, { headers: { depth: '0' }, body: lockBody() });
    assert.equal(ben.status, 200, 'another user is not affected');
    await new DavClient(service, account(env, 'ben')).request('UNLOCK', `${dir}/b.md`, { headers: { 'lock-token': ben.headers.get('lock-token')! } });
    for (const token of tokens) assert.equal((await anna.request('UNLOCK', `${dir}/a.md`, { headers: { 'lock-token': token } })).status, 204);
    const again = await anna.request('LOCK', `${dir}/b.md`, { headers: { depth: '0' }, body: lockBody() });
    assert.equal(again.status, 200, 'free again after UNLOCK');
    assert.equal((await anna.request('UNLOCK', `${dir}/b.md`, { headers: { 'lock-token': again.headers.get('lock-token')! } })).status, 204);
  });

  it('bounds dead properties per resource (403), per user (403) and in total (507), removals always allowed', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `<s:p${i}>v</s:p${i}>`).join('');
    const many = await anna.request('PROPPATCH', `${dir}/c.md`, { body: setBody(six) });
    assert.equal(many.status, 403);
    assert.equal(await errorOf(many), 'too_many_properties');
    const large = await anna.request('PROPPATCH', `${dir}/c.md`, { body: setBody(`<s:big>${'x'.repeat(3000)}</s:big>`) });
    assert.equal(large.status, 403);
    assert.equal(await errorOf(large), 'properties_too_large');
    // A property of 1.9 KiB takes about 2.5 KiB of memory: three fit in one user's 8 KiB, four in the 11 KiB total.
    const value = 'y'.repeat(1900);
    for (const name of ['a.md', 'c.md', 'd.md']) {
      assert.equal((await anna.request('PROPPATCH', `${dir}/${name}`, { body: setBody(`<s:big>${value}</s:big>`) })).status, 207, name);
    }
    const annasFourth = await anna.request('PROPPATCH', `${dir}/e.md`, { body: setBody(`<s:big>${value}</s:big>`) });
    assert.equal(annasFourth.status, 403);
    assert.equal(await errorOf(annasFourth), 'user_properties_too_large');
    const ben = new DavClient(service, account(env, 'ben'));
    assert.equal((await ben.request('PROPPATCH', `${dir}/e.md`, { body: setBody(`<s:big>${value}</s:big>`) })).status, 207, 'another user is not affected');
    const full = await ben.request('PROPPATCH', `${dir}/page.md`, { body: setBody(`<s:big>${value}</s:big>`) });
    assert.equal(full.status, 507);
    assert.equal(await errorOf(full), 'property_store_full');
    assert.equal((await ben.request('PROPPATCH', `${dir}/e.md`, { body: removeBody('big') })).status, 207);
    assert.equal((await ben.request('PROPPATCH', `${dir}/page.md`, { body: setBody(`<s:big>${value}</s:big>`) })).status, 207, 'room again');
  });
});
