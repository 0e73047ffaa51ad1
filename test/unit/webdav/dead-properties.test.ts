import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DeadProperties } from '../../../src/webdav/dead-properties.js';
import { element } from '../../../src/webdav/xml.js';

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

  it('survive a reopen of the file, which is replaced whole', async () => {
    const file = join(dir, 'sub', 'dav-properties.json');
    const store = await DeadProperties.open(file);
    await Promise.all([
      store.patch(at('x'), [{ set: prop('k', 'ä\u{10000}') }]),
      store.patch(at('y'), [{ set: element('', 'plain', [element('bar', 'foo')]) }]),
    ]);
    const reopened = await DeadProperties.open(file);
    assert.deepEqual(reopened.get(at('x')), [prop('k', 'ä\u{10000}')]);
    assert.deepEqual(reopened.get(at('Y')), [element('', 'plain', [element('bar', 'foo')])]);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).version, 1);
  });

  it('refuse to start on a damaged file, naming it', async () => {
    const file = join(dir, 'damaged.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, '{"version":1,');
    await assert.rejects(DeadProperties.open(file), new RegExp(`${file} is not valid JSON`));
  });
});
