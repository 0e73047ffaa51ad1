// The wiki layout through WebDAV (only *.md files in a .wiki folder, no
// sub-folders) and the post-write hook: every kind of change to a page (PUT,
// COPY, MOVE of the page and of its folder, DELETE) reaches the search index
// through the reconciler, with drift repair out of the picture (one pass at
// start, the next a day later).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { freePort } from '../../support/ports.js';
import { startService, waitFor, type RunningService } from '../../support/service.js';
import { MAX_INDEXED_PAGE_BYTES } from '../../../src/indexing/smb-reader/wiki-reads.js';
import { runJob } from '../reconcile/support.js';
import { eventually, passAfter, reconcilerDetails, WikiClient, type Caller } from '../wiki/wiki-service.js';
import { DavClient, account } from './dav-client.js';

describe('WebDAV and the wiki', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let dav: DavClient;
  let wiki: WikiClient;
  const teacher: Caller = { user: 'anna', groups: ['Lehrer'] };
  const dir = `_davwiki-${randomBytes(4).toString('hex')}`;
  const word = `davhook${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    const startedAt = Date.now();
    service = await startService({ reconciler: { interval: '24h' } });
    await passAfter(service, startedAt);
    dav = new DavClient(service, account(env, 'anna'));
    wiki = new WikiClient(service.url, env);
    assert.equal(await dav.mkcol(dir), 201);
    assert.equal(await dav.mkcol(`${dir}/.wiki`), 201);
  });
  after(async () => {
    await dav.remove(`${dir}-neu`);
    await dav.remove(dir);
    await service.stop();
  });

  it('refuses anything but *.md files in a .wiki folder, and folders in it, saying why', async () => {
    const png = await dav.put(`${dir}/.wiki/bild.png`, 'png');
    assert.equal(png.status, 403);
    assert.deepEqual(await png.json(), {
      status: 'error', error: 'wiki_non_markdown', message: `'${dir}/.wiki/bild.png': only Markdown files (*.md) may be stored in a .wiki folder`,
    });
    const sub = await dav.request('MKCOL', `${dir}/.wiki/unterordner`);
    assert.equal(sub.status, 403);
    assert.equal(((await sub.json()) as { error: string }).error, 'wiki_subfolder');
    assert.equal((await dav.put(`${dir}/notiz.txt`, 'text')).status, 201);
    const copyIn = await dav.request('COPY', `${dir}/notiz.txt`, { headers: { destination: dav.url(`${dir}/.wiki/notiz.txt`) } });
    assert.equal(copyIn.status, 403);
    assert.equal(await dav.mkcol(`${dir}/ordner`), 201);
    assert.equal((await dav.put(`${dir}/ordner/a.txt`, 'a')).status, 201);
    const renameToWiki = await dav.request('MOVE', `${dir}/ordner`, { headers: { destination: dav.url(`${dir}/ordner2/.wiki`) } });
    assert.equal(renameToWiki.status, 403);
    assert.equal((await dav.request('LOCK', `${dir}/.wiki/sperre.txt`, {
      body: '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>',
    })).status, 403);
    assert.equal((await dav.put(`${dir}/.wiki/index.md`, '# Start\n')).status, 201);
  });

  it('leaves a page over the size limit as the index has it, as a pass does', async () => {
    const page = `${dir}/.wiki/gross.md`;
    const small = `${word}klein`;
    const large = `${word}gross`;
    const finds = async (q: string) => wiki.searchedPages(teacher, { q });
    assert.equal((await dav.put(page, `# Gross\n\n${small}\n`)).status, 201);
    await eventually(async () => assert.deepEqual(await finds(small), [`schule:${page}`]));

    const failed = (await reconcilerDetails(service)).hook.failed;
    assert.equal((await dav.put(page, `# Gross\n\n${large}\n${'x'.repeat(MAX_INDEXED_PAGE_BYTES)}\n`)).status, 204);
    // The hook's load and the change watch's each fail on it, often within a few ms of each other: at least one.
    await waitFor(async () => (await reconcilerDetails(service)).hook.failed > failed, 10_000);
    assert.deepEqual(await finds(large), [], 'the hook did not index it');
    assert.deepEqual(await finds(small), [`schule:${page}`], 'the last indexed version stays');

    const pass = await runJob(service, { kind: 'pass' });
    assert.equal(pass.failed, 1, 'the pass does not index it either');
    assert.deepEqual(await finds(large), []);
    assert.deepEqual(await finds(small), [`schule:${page}`]);
    assert.equal(await dav.remove(page), 204);
    await eventually(async () => assert.deepEqual(await finds(small), []));
  });

  it('sends the post-write hook for every kind of change to a page', async () => {
    const found = (expected: string[]) => eventually(async () => {
      assert.deepEqual(await wiki.searchedPages(teacher, { q: word }), expected.map((p) => `schule:${p}`).sort());
    });
    const page = `${dir}/.wiki/seite.md`;
    assert.equal((await dav.put(page, `# Seite\n\n${word}\n`)).status, 201);
    await found([page]);

    const renamed = `${dir}/.wiki/umbenannt.md`;
    assert.equal((await dav.request('MOVE', page, { headers: { destination: dav.url(renamed) } })).status, 201);
    await found([renamed]);

    const copy = `${dir}/.wiki/kopie.md`;
    assert.equal((await dav.request('COPY', renamed, { headers: { destination: dav.url(copy) } })).status, 201);
    await found([renamed, copy]);

    assert.equal(await dav.remove(copy), 204);
    await found([renamed]);

    const moved = `${dir}-neu/.wiki/umbenannt.md`;
    assert.equal((await dav.request('MOVE', dir, { headers: { destination: dav.url(`${dir}-neu`) } })).status, 201);
    await found([moved]);

    assert.equal(await dav.remove(`${dir}-neu`), 204);
    await found([]);
  });
});

describe('WebDAV while Elasticsearch is unreachable', () => {
  it('keeps every method working on wiki pages; the hook messages are the reconciler\'s to drop', async () => {
    const env = await readTestbedEnv();
    const service = await startService({ elasticsearch: { url: `http://127.0.0.1:${await freePort()}` } });
    const dav = new DavClient(service, account(env, 'anna'));
    const dir = `_davwiki-${randomBytes(4).toString('hex')}`;
    try {
      assert.equal(await dav.mkcol(dir), 201);
      assert.equal(await dav.mkcol(`${dir}/.wiki`), 201);
      const started = Date.now();
      const put = await dav.put(`${dir}/.wiki/index.md`, '# Start\n');
      assert.equal(put.status, 201);
      assert.equal((await dav.put(`${dir}/.wiki/index.md`, '# Start 2\n', { 'if-match': put.headers.get('etag')! })).status, 204);
      assert.equal((await dav.text(`${dir}/.wiki/index.md`)).body, '# Start 2\n');
      assert.equal((await dav.request('COPY', `${dir}/.wiki/index.md`, { headers: { destination: dav.url(`${dir}/.wiki/kopie.md`) } })).status, 201);
      assert.equal((await dav.request('MOVE', `${dir}/.wiki/kopie.md`, { headers: { destination: dav.url(`${dir}/.wiki/neu.md`) } })).status, 201);
      assert.equal(await dav.remove(`${dir}/.wiki/neu.md`), 204);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    } finally {
      await dav.remove(dir);
      await service.stop();
    }
  });
});
