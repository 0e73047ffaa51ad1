import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { DeadProperties } from '../../../src/webdav/dead-properties.js';
import { element, storedSize, type XmlElement } from '../../../src/webdav/xml.js';
import { propertyStores } from '../../support/property-stores.js';

const LOG = 'dav-properties.log';
const at = (path: string) => ({ share: 'schule', path });
const ANNA = 'edu\\anna';
const BEN = 'edu\\ben';
const prop = (name: string, value: string) => element('urn:x', name, [value]);
const newStore = propertyStores();
/** What `properties` on `resource` count against the budgets, as the store counts it. */
async function costOf(resource: { share: string; path: string }, properties: XmlElement[]): Promise<number> {
  const probe = await newStore();
  await probe.patch(resource, properties.map((p) => ({ set: p })), 'probe');
  return probe.bytes;
}
const values = (store: DeadProperties, path: string) => store.get(at(path)).map((p) => `${p.name}=${p.children[0]}`).sort();

describe('dead properties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dav-props-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('set and remove in order, keyed case-insensitively', async () => {
    const store = await newStore();
    await store.patch(at('Doc.md'), [{ set: prop('a', '1') }, { set: prop('b', '2') }, { remove: { ns: 'urn:x', name: 'a' } }, { set: prop('b', '3') }], ANNA);
    assert.deepEqual(values(store, 'doc.md'), ['b=3']);
    await store.patch(at('doc.md'), [{ remove: { ns: 'urn:x', name: 'b' } }], ANNA);
    assert.equal(store.size, 0);
  });

  it('move, copy (depth 0 or the whole tree) and remove follow the resource and what lies below it', async () => {
    const store = await newStore();
    await store.patch(at('src'), [{ set: prop('top', 't') }], ANNA);
    await store.patch(at('src/a.md'), [{ set: prop('m', 'a') }], ANNA);
    await store.patch(at('srcx'), [{ set: prop('other', 'o') }], ANNA);
    await store.copy(at('src'), at('shallow'), '0', ANNA);
    assert.deepEqual([values(store, 'shallow'), values(store, 'shallow/a.md')], [['top=t'], []]);
    await store.copy(at('src'), at('deep'), 'infinity', ANNA);
    assert.deepEqual(values(store, 'deep/a.md'), ['m=a']);
    await store.move(at('src'), at('moved'));
    assert.deepEqual([values(store, 'src'), values(store, 'moved/a.md'), values(store, 'srcx')], [[], ['m=a'], ['other=o']]);
    await store.remove(at('deep'));
    assert.deepEqual(values(store, 'deep/a.md'), []);
  });

  it('survive a reopen: each change is appended to the log, not the whole store rewritten', async () => {
    const folder = join(dir, 'reopen');
    const store = await DeadProperties.open(folder);
    await Promise.all([
      store.patch(at('x'), [{ set: prop('k', 'ä\u{10000}') }], ANNA),
      store.patch(at('y'), [{ set: element('', 'plain', [element('bar', 'foo')]) }], ANNA),
    ]);
    const before = readFileSync(join(folder, LOG), 'utf8');
    await store.patch(at('z'), [{ set: prop('k', 'z') }], ANNA);
    await store.close();
    const after = readFileSync(join(folder, LOG), 'utf8');
    assert.ok(after.startsWith(before), 'appended');
    assert.equal(after.slice(before.length).split('\n').length, 2, 'one line for one changed resource');
    const reopened = await DeadProperties.open(folder);
    assert.deepEqual(reopened.get(at('x')), [prop('k', 'ä\u{10000}')]);
    assert.deepEqual(reopened.get(at('Y')), [element('', 'plain', [element('bar', 'foo')])]);
    assert.deepEqual(values(reopened, 'z'), ['k=z']);
    await reopened.close();
  });

  it('drop a torn last line (a crash during its append) and go on appending after what was whole', async () => {
    const folder = join(dir, 'torn');
    const store = await DeadProperties.open(folder);
    await store.patch(at('a'), [{ set: prop('k', '1') }], ANNA);
    await store.close();
    appendFileSync(join(folder, LOG), '{"share":"schule","path":"b","prop');
    const reopened = await DeadProperties.open(folder);
    assert.deepEqual([values(reopened, 'a'), values(reopened, 'b')], [['k=1'], []]);
    await reopened.patch(at('c'), [{ set: prop('k', '3') }], ANNA);
    await reopened.close();
    const third = await DeadProperties.open(folder);
    assert.deepEqual([values(third, 'a'), values(third, 'c')], [['k=1'], ['k=3']]);
    await third.close();
  });

  it('keep every whole record of a log whose tail an editor or the disk tore: a cut line ended by a newline, zeros, a cut header', async () => {
    const folder = join(dir, 'torn-tails');
    const store = await DeadProperties.open(folder);
    await store.patch(at('a'), [{ set: prop('k', '1') }], ANNA);
    await store.patch(at('b'), [{ set: prop('k', '2') }], ANNA);
    await store.close();
    const log = join(folder, LOG);
    const whole = readFileSync(log, 'utf8');
    const tails = [
      // Cut in the middle of b's line, then saved by an editor that ends the file with a newline.
      whole.slice(0, whole.length - 12) + '\n',
      // The file system had grown the file but not written the data: zeros, a newline among them.
      whole + '\0'.repeat(40) + '\n' + '\0'.repeat(9),
      // A cut line, then a line of garbage.
      whole + '{"share":"schule","pa\n\u0001garbage\n',
    ];
    for (const [i, tail] of tails.entries()) {
      writeFileSync(log, tail);
      const reopened = await DeadProperties.open(folder);
      assert.deepEqual(values(reopened, 'a'), ['k=1'], `tail ${i}`);
      assert.deepEqual(values(reopened, 'b'), i === 0 ? [] : ['k=2'], `tail ${i}`);
      await reopened.patch(at('c'), [{ set: prop('k', '3') }], ANNA);
      await reopened.close();
      const third = await DeadProperties.open(folder);
      assert.deepEqual(values(third, 'c'), ['k=3'], `tail ${i}: appended after what was whole`);
      await third.close();
      writeFileSync(log, whole);
    }
    truncateSync(log, 5);
    const empty = await DeadProperties.open(folder);
    assert.equal(empty.size, 0, 'a header cut short is an empty store');
    await empty.patch(at('d'), [{ set: prop('k', '4') }], ANNA);
    await empty.close();
    const after = await DeadProperties.open(folder);
    assert.deepEqual(values(after, 'd'), ['k=4']);
    await after.close();
  });

  it('never acknowledge a change the file system took only part of (a short write, here at the file size limit)', async () => {
    const folder = join(dir, 'short-write');
    const module = pathToFileURL(join(import.meta.dirname, '../../../src/webdav/dead-properties.js')).href;
    // Each change is a line of about 1 KiB; the file size limit cuts the fifth in the middle.
    const script = `
      const { DeadProperties } = await import(${JSON.stringify(module)});
      const store = await DeadProperties.open(${JSON.stringify(folder)});
      for (let i = 0; ; i++) {
        const el = { ns: 'urn:x', name: 'k', attrs: [], children: ['v'.repeat(1000)] };
        try { await store.patch({ share: 'schule', path: 'r' + i }, [{ set: el }], 'edu\\\\anna'); } catch { break; }
        process.stdout.write(i + '\\n');
      }`;
    const child = spawnSync('prlimit', [`--fsize=${4 * 1024 + 512}`, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const acknowledged = child.stdout.split('\n').filter(Boolean);
    assert.ok(acknowledged.length >= 3, `acknowledged: ${acknowledged.join(' ')}`);
    const reopened = await DeadProperties.open(folder);
    for (const i of acknowledged) assert.equal(reopened.get(at(`r${i}`)).length, 1, `acknowledged change r${i} is kept`);
    await reopened.close();
  });

  it('bound what each user sets (max_user_size) apart from the total, so one user cannot fill the store for others', async () => {
    const value = 'x'.repeat(500);
    const cost = await costOf(at('a'), [prop('k', value)]);
    const store = await newStore({ maxPerResource: 10, maxResourceSize: 4096, maxUserSize: 3 * cost, maxTotalSize: 10 * cost });
    for (const path of ['a', 'b', 'c']) assert.equal(await store.patch(at(path), [{ set: prop('k', value) }], ANNA), undefined);
    assert.equal(await store.patch(at('d'), [{ set: prop('k', value) }], ANNA), 'max_user_size');
    assert.equal(await store.copy(at('a'), at('e'), '0', ANNA), 'max_user_size', 'a copy counts for who makes it');
    assert.equal(await store.patch(at('d'), [{ set: prop('k', value) }], BEN), undefined, 'another user is not affected');
    assert.equal(await store.copy(at('a'), at('e'), '0', BEN), undefined);
    assert.deepEqual([store.bytesOf(ANNA), store.bytesOf(BEN)], [3 * cost, 2 * cost]);
    // Ben overwrites one of Anna's: it is his now, and Anna has room again.
    assert.equal(await store.patch(at('a'), [{ set: prop('k', value) }], BEN), undefined);
    assert.deepEqual([store.bytesOf(ANNA), store.bytesOf(BEN)], [2 * cost, 3 * cost]);
    assert.equal(await store.patch(at('f'), [{ set: prop('k', value) }], ANNA), undefined);
    await store.remove(at('f'));
    assert.equal(store.bytesOf(ANNA), 2 * cost);
  });

  it('keep who set each property across a reopen, and read logs without owners', async () => {
    const folder = join(dir, 'owners');
    const store = await DeadProperties.open(folder);
    await store.patch(at('a'), [{ set: prop('k', '1') }], ANNA);
    await store.patch(at('a'), [{ set: prop('m', '2') }], BEN);
    const [anna, ben] = [store.bytesOf(ANNA), store.bytesOf(BEN)];
    await store.close();
    appendFileSync(join(folder, LOG), '{"share":"schule","path":"old","properties":[{"ns":"urn:x","name":"k","attrs":[],"children":["o"]}]}\n');
    const reopened = await DeadProperties.open(folder);
    assert.deepEqual([reopened.bytesOf(ANNA), reopened.bytesOf(BEN)], [anna, ben]);
    assert.deepEqual(values(reopened, 'old'), ['k=o']);
    await reopened.close();
  });

  it('sweep: drop what the file server no longer has at the path, or has as another file; keep what it cannot tell', async () => {
    const folder = join(dir, 'sweep');
    const store = await DeadProperties.open(folder);
    for (const path of ['gone', 'replaced', 'unknown', 'kept']) await store.patch(at(path), [{ set: prop('k', path) }], ANNA, `${path}@1`);
    await store.copy(at('kept'), at('copy'), '0', ANNA);
    const now: Record<string, string | null | undefined> = { gone: null, replaced: 'replaced@2', unknown: undefined, kept: 'kept@1', copy: 'copy@1' };
    assert.equal(await store.sweep(async (r) => now[r.path]), 2);
    assert.deepEqual(['gone', 'replaced', 'unknown', 'kept', 'copy'].map((p) => store.get(at(p)).length), [0, 0, 1, 1, 1]);
    await store.close();
    // The copy took the identity the sweep found, and keeps it across a reopen.
    const reopened = await DeadProperties.open(folder);
    assert.equal(await reopened.sweep(async (r) => (r.path === 'copy' ? 'copy@2' : now[r.path])), 1);
    assert.deepEqual(values(reopened, 'copy'), []);
    await reopened.close();
  });

  it('compact the log once it is twice the live data and over 1 MiB', async () => {
    const folder = join(dir, 'compact');
    const store = await DeadProperties.open(folder);
    const value = 'v'.repeat(64 * 1024);
    for (let i = 0; i < 40; i++) await store.patch(at('churn'), [{ set: prop('k', `${i}${value}`) }], ANNA);
    await store.close();
    const size = statSync(join(folder, LOG)).size;
    assert.ok(size < 1.2 * 1024 * 1024, `log of ${size} bytes after 40 x 64 KiB changes of one resource`);
    const reopened = await DeadProperties.open(folder);
    assert.equal(reopened.get(at('churn'))[0]!.children[0], `39${value}`);
    await reopened.close();
  });

  it('take over a store of version 1 (one JSON file) at the first open', async () => {
    const folder = join(dir, 'legacy');
    mkdirSync(folder);
    const legacy = { version: 1, resources: [{ share: 'schule', path: 'old.md', properties: [prop('k', 'old')] }] };
    writeFileSync(join(folder, 'dav-properties.json'), JSON.stringify(legacy));
    const store = await DeadProperties.open(folder);
    assert.deepEqual(values(store, 'old.md'), ['k=old']);
    await store.close();
    assert.equal(existsSync(join(folder, 'dav-properties.json')), false);
    const reopened = await DeadProperties.open(folder);
    assert.deepEqual(values(reopened, 'old.md'), ['k=old']);
    await reopened.close();
  });

  it('refuse to start on a damaged line before the last, naming file and line', async () => {
    const folder = join(dir, 'damaged');
    mkdirSync(folder);
    writeFileSync(join(folder, LOG), '{"version":2}\n{"share":\n{"share":"schule","path":"a","properties":[]}\n');
    await assert.rejects(DeadProperties.open(folder), new RegExp(`${join(folder, LOG)}:2 is not valid JSON`));
  });

  it('refuse changes past their bounds, naming the bound, and always allow shrinking', async () => {
    const one = storedSize(prop('k', 'x'.repeat(100)));
    const cost = await costOf(at('a'), [prop('k', 'x'.repeat(100))]);
    const store = await newStore({ maxPerResource: 2, maxResourceSize: one + 10, maxUserSize: Infinity, maxTotalSize: 2 * cost + 10 });
    assert.equal(await store.patch(at('a'), [{ set: prop('1', '') }, { set: prop('2', '') }, { set: prop('3', '') }], ANNA), 'max_per_resource');
    assert.equal(await store.patch(at('a'), [{ set: prop('big', 'x'.repeat(200)) }], ANNA), 'max_resource_size');
    assert.equal(await store.patch(at('a'), [{ set: prop('k', 'x'.repeat(100)) }], ANNA), undefined);
    assert.equal(await store.patch(at('b'), [{ set: prop('k', 'x'.repeat(100)) }], ANNA), undefined);
    assert.equal(await store.patch(at('c'), [{ set: prop('k', 'x'.repeat(100)) }], ANNA), 'max_total_size');
    assert.equal(await store.copy(at('a'), at('d'), '0', ANNA), 'max_total_size');
    assert.deepEqual(values(store, 'd'), [], 'a copy past the total carries no properties');
    assert.equal(await store.patch(at('a'), [{ set: prop('k', 'x') }], ANNA), undefined, 'shrinking is always allowed');
    assert.equal(await store.patch(at('a'), [{ remove: { ns: 'urn:x', name: 'k' } }], ANNA), undefined);
    assert.equal(await store.patch(at('c'), [{ set: prop('k', 'x'.repeat(100)) }], ANNA), undefined);
    assert.equal(store.size, 2);
  });
});
