import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareCodePoints } from '../../../src/common/code-point-order.js';
import { diffShare, groupGone, OrderError, type DiffItem } from '../../../src/indexing/reconciler/diff.js';
import { walkItemKey, type WalkItem } from '../../../src/indexing/reconciler/ordered-walk.js';
import type { IndexedPage } from '../../../src/indexing/reconciler/inventory.js';
import { FACTS, randomInts } from './fixtures.js';
import { flatten } from '../../../src/common/flatten.js';

const idOf = (path: string) => `id:${path.toLowerCase()}`;

/** `items` in steps of 1, 2, 3, 1, 2, 3, ... items, as the walk and the inventory yield theirs: where a step ends must not matter. */
async function* inSteps<T>(items: readonly T[]): AsyncGenerator<T[]> {
  for (let at = 0, size = 1; at < items.length; at += size, size = (size % 3) + 1) yield items.slice(at, at + size);
}

async function diff(walk: WalkItem[], indexed: IndexedPage[]): Promise<DiffItem[]> {
  const items: DiffItem[] = [];
  for await (const item of diffShare(inSteps(walk), inSteps(indexed), idOf)) items.push(item);
  return items;
}

const page = (path: string, version = 'v1'): WalkItem => ({ kind: 'page', path, version, facts: FACTS });
const doc = (path: string, version = 'v1', id = idOf(path)): IndexedPage => ({ id, path, version });

describe('diffShare', () => {
  it('sorts pages into missing, changed, unchanged and gone', async () => {
    assert.deepEqual(
      await diff(
        [page('a/.wiki/new.md'), page('b/.wiki/same.md'), page('c/.wiki/edited.md', 'v2')],
        [doc('a/.wiki/deleted.md'), doc('b/.wiki/same.md'), doc('c/.wiki/edited.md'), doc('d/.wiki/deleted.md')],
      ),
      [
        { kind: 'gone', id: idOf('a/.wiki/deleted.md'), path: 'a/.wiki/deleted.md' },
        { kind: 'missing', path: 'a/.wiki/new.md', facts: FACTS },
        { kind: 'unchanged', id: idOf('b/.wiki/same.md'), path: 'b/.wiki/same.md', facts: FACTS },
        { kind: 'changed', id: idOf('c/.wiki/edited.md'), path: 'c/.wiki/edited.md', facts: FACTS },
        { kind: 'gone', id: idOf('d/.wiki/deleted.md'), path: 'd/.wiki/deleted.md' },
      ],
    );
  });

  it('revokes documents of unreadable pages and below denied folders, keeps those below skipped folders', async () => {
    assert.deepEqual(
      await diff(
        [
          { kind: 'denied', prefix: 'a/' },
          { kind: 'skipped', prefix: 'b/', reason: 'STATUS_X' },
          { kind: 'unreadable', path: 'c/.wiki/secret.md' },
          { kind: 'unreadable', path: 'c/.wiki/unknown.md' },
        ],
        [doc('a/.wiki/x.md'), doc('a/sub/.wiki/y.md'), doc('b/.wiki/z.md'), doc('b/c/.wiki/z.md'), doc('c/.wiki/secret.md')],
      ),
      [
        { kind: 'unreadable', id: idOf('a/.wiki/x.md'), path: 'a/.wiki/x.md' },
        { kind: 'unreadable', id: idOf('a/sub/.wiki/y.md'), path: 'a/sub/.wiki/y.md' },
        { kind: 'denied', prefix: 'a/' },
        { kind: 'skipped', prefix: 'b/', reason: 'STATUS_X', kept: 2 },
        { kind: 'unreadable', id: idOf('c/.wiki/secret.md'), path: 'c/.wiki/secret.md' },
        { kind: 'unreadable', id: null, path: 'c/.wiki/unknown.md' },
      ],
    );
  });

  it('replaces a document filed under another id (another server) instead of diffing against it', async () => {
    assert.deepEqual(await diff([page('a/.wiki/p.md')], [doc('a/.wiki/p.md', 'v1', 'other-server')]), [
      { kind: 'misplaced', id: 'other-server', path: 'a/.wiki/p.md' },
      { kind: 'missing', path: 'a/.wiki/p.md', facts: FACTS },
    ]);
  });

  it('stops when either side is out of order instead of deleting wrongly', async () => {
    await assert.rejects(diff([page('b/.wiki/p.md'), page('a/.wiki/p.md')], []), OrderError);
    await assert.rejects(diff([], [doc('b/.wiki/p.md'), doc('b/.wiki/p.md')]), OrderError);
  });

  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`agrees with a set-based diff on random shares (seed ${seed})`, async () => {
      const random = randomInts(seed);
      const folders = ['a', 'A', 'a-b', 'a/b', 'b', 'ß', '\u{1f600}', '\uff0e', 'x/y/z'];
      const universe = [...new Set(Array.from({ length: 80 }, () => `${folders[random(folders.length)]}/.wiki/${random(12)}.md`))];
      const denied = `${folders[random(folders.length)]}/`;
      const skipped = `${folders[random(folders.length)]}/`;
      const under = (path: string) => (path.startsWith(denied) ? 'denied' : path.startsWith(skipped) ? 'skipped' : null);

      const walk: WalkItem[] = [];
      const indexed: IndexedPage[] = [];
      for (const path of universe) {
        const onShare = random(4);
        if (onShare > 0 && under(path) === null) walk.push(onShare === 1 ? { kind: 'unreadable', path } : page(path, `v${random(2)}`));
        if (random(3) > 0) indexed.push(doc(path, `v${random(2)}`, random(10) === 0 ? `other:${path}` : idOf(path)));
      }
      if (denied !== skipped) {
        walk.push({ kind: 'denied', prefix: denied });
        if (!skipped.startsWith(denied) && !denied.startsWith(skipped)) walk.push({ kind: 'skipped', prefix: skipped, reason: 'r' });
      }
      walk.sort((x, y) => compareCodePoints(walkItemKey(x), walkItemKey(y)));
      indexed.sort((x, y) => compareCodePoints(x.path, y.path));
      const markers = new Set(walk.filter((w) => w.kind === 'denied' || w.kind === 'skipped').map((w) => walkItemKey(w)));

      // The oracle: path by path, with sets.
      const expected: DiffItem[] = [];
      const onShare = new Map(walk.filter((w) => w.kind === 'page' || w.kind === 'unreadable').map((w) => [walkItemKey(w), w]));
      const inIndex = new Map(indexed.map((d) => [d.path, d]));
      for (const d of indexed) {
        const marker = [...markers].find((prefix) => d.path.startsWith(prefix));
        if (marker !== undefined) {
          if (marker === denied) expected.push({ kind: 'unreadable', id: d.id, path: d.path });
        } else if (!onShare.has(d.path)) expected.push({ kind: 'gone', id: d.id, path: d.path });
      }
      for (const prefix of markers) {
        if (prefix === denied) expected.push({ kind: 'denied', prefix });
        else expected.push({ kind: 'skipped', prefix, reason: 'r', kept: indexed.filter((d) => d.path.startsWith(prefix)).length });
      }
      for (const [path, w] of onShare) {
        const d = inIndex.get(path);
        const id = d !== undefined && d.id === idOf(path) ? d.id : null;
        if (d !== undefined && id === null) expected.push({ kind: 'misplaced', id: d.id, path });
        if (w.kind === 'unreadable') expected.push({ kind: 'unreadable', id, path });
        else if (id === null) expected.push({ kind: 'missing', path, facts: FACTS });
        else expected.push({ kind: d!.version === w.version ? 'unchanged' : 'changed', id, path, facts: FACTS });
      }

      const actual = await diff(walk, indexed);
      const canonical = (items: DiffItem[]) => items.map((item) => JSON.stringify(item)).sort();
      assert.deepEqual(canonical(actual), canonical(expected));
      const keys = actual.map((item) => ('path' in item ? item.path : item.prefix));
      for (let i = 1; i < keys.length; i++) {
        // Items come in path order, except that the documents below a folder marker precede the marker itself.
        assert.ok(compareCodePoints(keys[i - 1]!, keys[i]!) <= 0 || markers.has(keys[i]!) || keys[i - 1]!.startsWith(keys[i]!), `${keys[i - 1]} before ${keys[i]}`);
      }
    });
  }
});

describe('groupGone', () => {
  it('collects consecutive gone pages of one .wiki folder, case-insensitively, in groups of at most max', async () => {
    const gone = (path: string): DiffItem => ({ kind: 'gone', id: idOf(path), path });
    const items: DiffItem[] = [
      gone('A/.wiki/1.md'),
      gone('a/.Wiki/2.md'),
      gone('a/.wiki/3.md'),
      { kind: 'missing', path: 'a/.wiki/4.md', facts: FACTS },
      gone('a/.wiki/5.md'),
      gone('a/b/.wiki/6.md'),
      gone('not-a-page.txt'),
      gone('.wiki/7.md'),
    ];
    const grouped = [];
    for await (const item of groupGone(flatten(inSteps(items)), 2)) grouped.push(item);
    const pages = (...paths: string[]) => paths.map((path) => ({ id: idOf(path), path }));
    assert.deepEqual(grouped, [
      { kind: 'gone-in-folder', wikiDir: 'A/.wiki', pages: pages('A/.wiki/1.md', 'a/.Wiki/2.md') },
      { kind: 'gone-in-folder', wikiDir: 'a/.wiki', pages: pages('a/.wiki/3.md') },
      { kind: 'missing', path: 'a/.wiki/4.md', facts: FACTS },
      { kind: 'gone-in-folder', wikiDir: 'a/.wiki', pages: pages('a/.wiki/5.md') },
      { kind: 'gone-in-folder', wikiDir: 'a/b/.wiki', pages: pages('a/b/.wiki/6.md') },
      gone('not-a-page.txt'),
      { kind: 'gone-in-folder', wikiDir: '.wiki', pages: pages('.wiki/7.md') },
    ]);
  });
});
