import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FolderListing, Unlisted, WikiDirListing } from '../../../src/indexing/listing.js';
import { ShareUnlistedError, walkWikiPages, type WalkItem } from '../../../src/indexing/reconciler/ordered-walk.js';
import { FACTS, randomInts } from './fixtures.js';
import { flatten } from '../../../src/common/flatten.js';

/** A folder of a fake share: sub-folders, maybe a `.wiki/`, or a state that makes listing it fail. */
interface FakeFolder {
  folders?: Record<string, FakeFolder>;
  wiki?: { name?: string; listing: WikiDirListing };
  unlisted?: Unlisted;
  /** Listing it throws, like a connection failure. */
  broken?: boolean;
}

function pages(...names: string[]): WikiDirListing {
  return { state: 'listed', pages: names.map((name) => ({ name, version: `v-${name}`, facts: FACTS })), unreadable: [] };
}

/** Lists one folder of `root`, counting listings in flight; each answer takes a few random milliseconds. */
function fakeShare(root: FakeFolder) {
  const stats = { calls: [] as string[], inFlight: 0, maxInFlight: 0 };
  const list = async (path: string): Promise<FolderListing> => {
    stats.calls.push(path);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    stats.inFlight--;
    let folder = root;
    for (const segment of path === '' ? [] : path.split('/')) folder = folder.folders![segment]!;
    if (folder.broken) throw new Error(`connection lost listing ${path}`);
    if (folder.unlisted) return folder.unlisted;
    return {
      state: 'listed',
      folders: Object.keys(folder.folders ?? {}),
      wiki: folder.wiki ? { name: folder.wiki.name ?? '.wiki', listing: folder.wiki.listing } : null,
    };
  };
  return { list, stats };
}

/** The walk's items, its steps joined; no step is empty. */
async function collect(walk: AsyncIterable<WalkItem[]>): Promise<WalkItem[]> {
  const items: WalkItem[] = [];
  for await (const step of walk) {
    assert.ok(step.length > 0, 'an empty step');
    items.push(...step);
  }
  return items;
}

const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('walkWikiPages', () => {
  it('yields every page in the byte order of the full paths, though folders sort differently by name', async () => {
    const { list } = fakeShare({
      wiki: { listing: pages('index.md', 'Zebra.md', 'alpha.md') },
      folders: {
        'a': { wiki: { listing: pages('x.md') }, folders: { b: { wiki: { name: '.Wiki', listing: pages('y.md') } } } },
        'a-b': { wiki: { listing: pages('z.md') } },
        '-first': { wiki: { listing: pages('p.md') } },
        'Ärger': { wiki: { listing: pages('ä.md', 'a.md') } },
        '\u{1f600}': { wiki: { listing: pages('emoji.md') } },
        '\uff0e': { wiki: { listing: pages('fullwidth.md') } },
        'empty': {},
      },
    });
    const paths = (await collect(walkWikiPages(list, { lookahead: 2 }))).map((item) => (item.kind === 'page' ? item.path : '?'));
    assert.deepEqual(paths, [...paths].sort(byUtf8));
    assert.equal(paths.length, 11);
    assert.ok(paths.indexOf('a-b/.wiki/z.md') < paths.indexOf('a/.wiki/x.md'), "'-' sorts before '/'");
    assert.ok(paths.includes('a/b/.Wiki/y.md'), 'the .wiki folder keeps its spelling');
  });

  for (const seed of [1, 2, 3, 4, 5]) it(`agrees with a sort of all paths on a random tree (seed ${seed})`, async () => {
    const names = ['a', 'A', 'a-', 'a.b', 'b', 'ß', 'z z', '\u{1f4a9}', '\uff0e', '0'];
    const random = randomInts(seed);
    const all: string[] = [];
    const grow = (path: string, depth: number): FakeFolder => {
      const folder: FakeFolder = { folders: {} };
      if (random(3) > 0) {
        const wikiPages = [...new Set(Array.from({ length: random(4) }, () => `${names[random(names.length)]}.md`))];
        folder.wiki = { listing: pages(...wikiPages) };
        all.push(...wikiPages.map((p) => `${path}.wiki/${p}`));
      }
      if (depth < 4) for (let i = depth < 2 ? 4 + random(3) : random(4); i > 0; i--) {
        const name = names[random(names.length)]!;
        if (!(name in folder.folders!)) folder.folders![name] = grow(`${path}${name}/`, depth + 1);
      }
      return folder;
    };
    const { list } = fakeShare(grow('', 0));
    const walked = (await collect(walkWikiPages(list, { lookahead: 3 }))).map((item) => (item.kind === 'page' ? item.path : '?'));
    assert.deepEqual(walked, all.sort(byUtf8));
    assert.ok(walked.length > 10, `${walked.length} pages`);
  });

  it('keeps the listings in flight bounded by the lookahead per level', async () => {
    const wide: Record<string, FakeFolder> = {};
    for (let i = 0; i < 60; i++) wide[`f${String(i).padStart(2, '0')}`] = { folders: { inner: { wiki: { listing: pages('p.md') } } } };
    const { list, stats } = fakeShare({ folders: wide });
    const items = await collect(walkWikiPages(list, { lookahead: 4 }));
    assert.equal(items.length, 60);
    assert.equal(stats.calls.length, 121);
    assert.ok(stats.maxInFlight <= 3 * 4, `at most depth x lookahead listings at once, saw ${stats.maxInFlight}`);
    assert.ok(stats.maxInFlight >= 3, `listings overlap, saw ${stats.maxInFlight}`);
  });

  it('asks for the folders ahead half a lookahead at a time, each half in one turn (a batcher sends it as one task)', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      if (!ticking) return;
      turn++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const callsByTurn = new Map<number, number>();
    // Each listing is answered in a turn of its own, after the one asked before it, as an SMB answer comes.
    let answers: Promise<unknown> = Promise.resolve();
    const list = (path: string): Promise<FolderListing> => {
      callsByTurn.set(turn, (callsByTurn.get(turn) ?? 0) + 1);
      const listing: FolderListing = path === ''
        ? { state: 'listed', folders: names, wiki: null }
        : { state: 'listed', folders: [], wiki: { name: '.wiki', listing: pages('p.md') } };
      const answer = answers.then(() => new Promise((resolve) => setImmediate(resolve))).then(() => listing);
      answers = answer;
      return answer;
    };
    const items = await collect(walkWikiPages(list, { lookahead: 8 }));
    ticking = false;
    assert.equal(items.length, 40);
    // The root alone, then the first 8 of its folders at once, then 4 at a time.
    assert.deepEqual([...callsByTurn.values()], [1, 8, 4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('reports unreadable pages and unlistable folders in their place in the order', async () => {
    const { list } = fakeShare({
      folders: {
        a: { wiki: { listing: { state: 'listed', pages: [{ name: 'ok.md', version: 'v', facts: FACTS }], unreadable: ['hidden.md'] } } },
        b: { unlisted: { state: 'denied' } },
        c: { unlisted: { state: 'missing' } },
        d: { wiki: { listing: { state: 'failed', error: 'STATUS_X' } } },
        e: { wiki: { listing: { state: 'denied' } } },
      },
    });
    assert.deepEqual(await collect(walkWikiPages(list)), [
      { kind: 'unreadable', path: 'a/.wiki/hidden.md' },
      { kind: 'page', path: 'a/.wiki/ok.md', version: 'v', facts: FACTS },
      { kind: 'denied', prefix: 'b/' },
      { kind: 'skipped', prefix: 'd/.wiki/', reason: 'STATUS_X' },
      { kind: 'denied', prefix: 'e/.wiki/' },
    ]);
  });

  it('skips folders nested deeper than maxDepth', async () => {
    const { list } = fakeShare({ folders: { a: { folders: { b: { folders: { c: { wiki: { listing: pages('deep.md') } } } } } } } });
    assert.deepEqual(await collect(walkWikiPages(list, { maxDepth: 2 })), [
      { kind: 'skipped', prefix: 'a/b/c/', reason: 'nested deeper than 2 folders' },
    ]);
  });

  it('fails when the root cannot be listed, and when a listing throws (after the pages before it)', async () => {
    await assert.rejects(collect(walkWikiPages(fakeShare({ unlisted: { state: 'denied' } }).list)), ShareUnlistedError);
    const { list } = fakeShare({
      folders: { a: { wiki: { listing: pages('first.md') } }, b: { broken: true }, c: { wiki: { listing: pages('never.md') } } },
    });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const item of flatten(walkWikiPages(list))) if (item.kind === 'page') seen.push(item.path);
      })(),
      /connection lost listing b/,
    );
    assert.deepEqual(seen, ['a/.wiki/first.md']);
  });

  it('walks below a folder only, and finds nothing below one that is gone (no error, unlike the share root)', async () => {
    const { list, stats } = fakeShare({
      wiki: { listing: pages('start.md') },
      folders: {
        K1: { wiki: { listing: pages('b.md', 'a.md') }, folders: { Mathe: { wiki: { listing: pages('m.md') } } } },
        K2: { wiki: { listing: pages('z.md') } },
        Weg: { unlisted: { state: 'missing' } },
        Zu: { unlisted: { state: 'denied' } },
      },
    });
    const paths = (await collect(walkWikiPages(list, { from: 'K1' }))).map((item) => (item.kind === 'page' ? item.path : item.kind));
    assert.deepEqual(paths, ['K1/.wiki/a.md', 'K1/.wiki/b.md', 'K1/Mathe/.wiki/m.md']);
    assert.deepEqual(stats.calls.sort(), ['K1', 'K1/Mathe'], 'nothing outside the folder is listed');
    assert.deepEqual(await collect(walkWikiPages(list, { from: 'Weg' })), []);
    assert.deepEqual(await collect(walkWikiPages(list, { from: 'Zu' })), [{ kind: 'denied', prefix: 'Zu/' }]);
  });
});
