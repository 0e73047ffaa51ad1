import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DeadProperties } from '../../../src/webdav/dead-properties.js';
import { element, storedSize } from '../../../src/webdav/xml.js';

const LOG = 'dav-properties.log';
const at = (path: string) => ({ share: 'schule', path });
const prop = (name: string, value: string) => element('urn:x', name, [value]);
const values = (store: DeadProperties, path: string) => store.get(at(path)).map((p) => `${p.name}=${p.children[0]}`).sort();

describe('dead properties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dav-props-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('set and remove in order, keyed case-insensitively', async () => {
    const store = DeadProperties.inMemory();
    await store.patch(at('Doc.md'), [{ set: prop('a', '1') }, { set: prop('b', '2') }, { remove: { ns: 'urn:x', name: 'a' } }, { set: prop('b', '3') }]);
    assert.deepEqual(values(store, 'doc.md'), ['b=3']);
    await store.patch(at('doc.md'), [{ remove: { ns: 'urn:x', name: 'b' } }]);
    assert.equal(store.size, 0);
  });

  it('move, copy (depth 0 or the whole tree) and remove follow the resource and what lies below it', async () => {
    const store = DeadProperties.inMemory();
    await store.patch(at('src'), [{ set: prop('top', 't') }]);
    await store.patch(at('src/a.md'), [{ set: prop('m', 'a') }]);
    await store.patch(at('srcx'), [{ set: prop('other', 'o') }]);
    await store.copy(at('src'), at('shallow'), '0');
    assert.deepEqual([values(store, 'shallow'), values(store, 'shallow/a.md')], [['top=t'], []]);
    await store.copy(at('src'), at('deep'), 'infinity');
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
      store.patch(at('x'), [{ set: prop('k', 'ä\u{10000}') }]),
      store.patch(at('y'), [{ set: element('', 'plain', [element('bar', 'foo')]) }]),
    ]);
    const before = readFileSync(join(folder, LOG), 'utf8');
    await store.patch(at('z'), [{ set: prop('k', 'z') }]);
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
    await store.patch(at('a'), [{ set: prop('k', '1') }]);
    await store.close();
    appendFileSync(join(folder, LOG), '{"share":"schule","path":"b","prop');
    const reopened = await DeadProperties.open(folder);
    assert.deepEqual([values(reopened, 'a'), values(reopened, 'b')], [['k=1'], []]);
    await reopened.patch(at('c'), [{ set: prop('k', '3') }]);
    await reopened.close();
    const third = await DeadProperties.open(folder);
    assert.deepEqual([values(third, 'a'), values(third, 'c')], [['k=1'], ['k=3']]);
    await third.close();
  });

  it('compact the log once it is twice the live data and over 1 MiB', async () => {
    const folder = join(dir, 'compact');
    const store = await DeadProperties.open(folder);
    const value = 'v'.repeat(64 * 1024);
    for (let i = 0; i < 40; i++) await store.patch(at('churn'), [{ set: prop('k', `${i}${value}`) }]);
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
    const store = DeadProperties.inMemory({ maxPerResource: 2, maxResourceSize: one + 10, maxTotalSize: 2 * one + 10 });
    assert.equal(await store.patch(at('a'), [{ set: prop('1', '') }, { set: prop('2', '') }, { set: prop('3', '') }]), 'max_per_resource');
    assert.equal(await store.patch(at('a'), [{ set: prop('big', 'x'.repeat(200)) }]), 'max_resource_size');
    assert.equal(await store.patch(at('a'), [{ set: prop('k', 'x'.repeat(100)) }]), undefined);
    assert.equal(await store.patch(at('b'), [{ set: prop('k', 'x'.repeat(100)) }]), undefined);
    assert.equal(await store.patch(at('c'), [{ set: prop('k', 'x'.repeat(100)) }]), 'max_total_size');
    assert.equal(await store.copy(at('a'), at('d'), '0'), 'max_total_size');
    assert.deepEqual(values(store, 'd'), [], 'a copy past the total carries no properties');
    assert.equal(await store.patch(at('a'), [{ set: prop('k', 'x') }, { set: prop('m', 'x') }]), undefined, 'shrinking is always allowed');
    assert.equal(await store.patch(at('a'), [{ remove: { ns: 'urn:x', name: 'k' } }, { remove: { ns: 'urn:x', name: 'm' } }]), undefined);
    assert.equal(await store.patch(at('c'), [{ set: prop('k', 'x'.repeat(100)) }]), undefined);
    assert.equal(store.size, 2);
  });
});
