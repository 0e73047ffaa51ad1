// The change watch's decisions, with a scripted SMB watch: which events become page changes (collected until quiet,
// renames as moves), which become a pass of a folder's subtree or of the share, what is dropped after parsing, and
// that it holds one watch of the share whatever comes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLog } from '../../../src/common/logger.js';
import type { PageChange } from '../../../src/wiki/page-change.js';
import { ShareWatch } from '../../../src/indexing/reconciler/share-watch.js';
import { FileAction, type WatchChange, type WatchOptions } from '../../../src/smb/index.js';

/**
 * A share whose watch arms at once and hands `send` to the test (`end` ends it as a server would); the watches set
 * up are counted. `folders` are the folders with indexed pages; `accepts` says whether the hook takes a change.
 */
function scripted(folders: string[] = [], accepts: (change: PageChange) => boolean = () => true) {
  let send!: (changes: WatchChange[] | 'overflow') => void;
  let end!: (error: Error) => void;
  const changes: PageChange[] = [];
  const passes: string[] = [];
  const watches = { count: 0 };
  const watch = new ShareWatch({
    server: 'srv',
    share: 'schule',
    smb: {
      watch: (options: WatchOptions) => {
        watches.count++;
        send = options.onChanges;
        options.onArmed?.();
        return new Promise<void>((resolve, reject) => {
          options.signal.addEventListener('abort', () => resolve());
          end = reject;
        });
      },
    },
    pageChanged: (change) => {
      if (!accepts(change)) return false;
      changes.push(change);
      return true;
    },
    requestPass: (folders) => passes.push(...folders),
    indexedFolders: async (root) => folders.filter((f) => root === '' || f === root || f.startsWith(`${root}/`)),
    quietMs: 20,
    maxDelayMs: 100,
    retryDelaysMs: [0, 50],
    log: silentLog,
  });
  watch.start();
  return { watch, changes, passes, watches, send: (c: WatchChange[] | 'overflow') => send(c), end: (e: Error) => end(e) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));
const page = (path: string) => ({ server: 'srv', share: 'schule', path });

test('a save (temporary name, renamed over the page) is one page-written; a rename of a page is a page-moved', async () => {
  const s = scripted();
  await settle();
  s.send([{ action: FileAction.ADDED, path: 'A/.wiki/.seite.md.~1.tmp' }]);
  s.send([{ action: FileAction.RENAMED_OLD_NAME, path: 'A/.wiki/.seite.md.~1.tmp' }, { action: FileAction.RENAMED_NEW_NAME, path: 'A/.wiki/seite.md' }]);
  s.send([{ action: FileAction.MODIFIED, path: 'A/.wiki/seite.md' }]);
  await settle();
  assert.deepEqual(s.changes, [{ type: 'page-written', page: page('A/.wiki/seite.md') }]);
  s.send([{ action: FileAction.RENAMED_OLD_NAME, path: 'A/.wiki/seite.md' }, { action: FileAction.RENAMED_NEW_NAME, path: 'B/.wiki/seite.md' }]);
  s.send([{ action: FileAction.REMOVED, path: 'A/.wiki/alt.md' }]);
  await settle();
  assert.deepEqual(s.changes.slice(1), [
    { type: 'page-moved', from: page('A/.wiki/seite.md'), to: page('B/.wiki/seite.md') },
    { type: 'page-deleted', page: page('A/.wiki/alt.md') },
  ]);
  assert.deepEqual(s.passes, []);
  await s.watch.stop();
});

test('whatever the number of .wiki folders, the watch holds one handle: the share\'s', async () => {
  const s = scripted(Array.from({ length: 500 }, (_, i) => `Klasse-${i}`));
  await settle();
  for (let i = 0; i < 50; i++) s.send([{ action: FileAction.ADDED, path: `Neu-${i}/.wiki` }, { action: FileAction.ADDED, path: `Neu-${i}/.wiki/seite.md` }]);
  await settle();
  assert.equal(s.watches.count, 1, 'one watch, of the share');
  assert.equal(s.watch.stats().handles, 1);
  await s.watch.stop();
});

test('a deleted tree costs its page deletions only: no pass, whether deleted as deltree or as Explorer does', async () => {
  const s = scripted(['S/K1', 'S/K1/Mathe', 'S/K2']);
  await settle();
  s.send([
    { action: FileAction.REMOVED, path: 'S/K1/Mathe/.wiki/seite.md' },
    { action: FileAction.REMOVED, path: 'S/K1/Mathe/.wiki' },
    { action: FileAction.REMOVED, path: 'S/K1/Mathe' },
    { action: FileAction.REMOVED, path: 'S/K1/.wiki/start.md' },
    { action: FileAction.REMOVED, path: 'S/K1/.wiki' },
    { action: FileAction.REMOVED, path: 'S/K1' },
  ]);
  await settle();
  assert.deepEqual(s.changes, [
    { type: 'page-deleted', page: page('S/K1/Mathe/.wiki/seite.md') },
    { type: 'page-deleted', page: page('S/K1/.wiki/start.md') },
  ]);
  assert.deepEqual(s.passes, []);
  // S/K1 no longer holds pages: renamed when it comes back empty, it asks for nothing.
  s.send([{ action: FileAction.RENAMED_OLD_NAME, path: 'S/K1' }, { action: FileAction.RENAMED_NEW_NAME, path: 'S/K9' }]);
  await settle();
  assert.deepEqual(s.passes, []);
  await s.watch.stop();
});

test('a renamed folder with pages is a pass of its old and its new subtree; an overflow, of the share; files and folders without pages cost nothing', async () => {
  const s = scripted(['Fachschaften/Mathe', 'Oben']);
  await settle();
  s.send([
    { action: FileAction.MODIFIED, path: 'Aushang.txt' },
    { action: FileAction.ADDED, path: 'Neu/Ordner' },
    { action: FileAction.RENAMED_OLD_NAME, path: 'Neu/Ordner' },
    { action: FileAction.RENAMED_NEW_NAME, path: 'Neu/Anders' },
    { action: FileAction.MODIFIED, path: 'Verwaltung' },
    { action: FileAction.MODIFIED, path: 'Fachschaften/Mathe/.wiki/notes.txt' },
  ]);
  await settle();
  assert.deepEqual([s.changes, s.passes], [[], []]);
  s.send([{ action: FileAction.RENAMED_OLD_NAME, path: 'fachschaften' }, { action: FileAction.RENAMED_NEW_NAME, path: 'Fachbereiche' }]);
  await settle();
  assert.deepEqual(s.passes, ['fachschaften', 'Fachbereiche']);
  // A folder's ACL, where the server reports it (Windows): the pages below inherit from it. A `.wiki/` renamed into
  // place: its folder. Both within one moment: one pass each, none for a folder inside another one's.
  s.send([{ action: FileAction.MODIFIED, path: 'Oben' }, { action: FileAction.RENAMED_NEW_NAME, path: 'Oben/Unten/.wiki' }, { action: FileAction.RENAMED_NEW_NAME, path: 'Neu/.wiki' }]);
  await settle();
  assert.deepEqual(s.passes.slice(2), ['Oben', 'Neu']);
  s.send('overflow');
  s.send([{ action: FileAction.MODIFIED, path: 'Oben' }]);
  await settle();
  assert.deepEqual(s.passes.slice(4), [''], 'the overflow does not say where: one pass of the share covers all');
  assert.equal(s.watch.stats().overflows, 1);
  await s.watch.stop();
});

test('page changes the hook cannot take are a pass of their folders, not of the share', async () => {
  const s = scripted([], (change) => change.type !== 'page-deleted');
  await settle();
  s.send([{ action: FileAction.REMOVED, path: 'A/B/.wiki/alt.md' }, { action: FileAction.ADDED, path: 'C/.wiki/neu.md' }]);
  await settle();
  assert.deepEqual(s.changes, [{ type: 'page-written', page: page('C/.wiki/neu.md') }]);
  assert.deepEqual(s.passes, ['A/B']);
  await s.watch.stop();
});

test('a watch the server ends is set up again at once, and a pass of the share catches up on what it may have missed', async () => {
  const s = scripted();
  await settle();
  s.end(new Error('connection reset'));
  await settle();
  assert.equal(s.watches.count, 2);
  assert.deepEqual(s.passes, ['']);
  assert.deepEqual({ ...s.watch.stats(), lastError: null }, { armed: true, handles: 1, events: 0, overflows: 0, rearms: 1, folderPasses: 0, lastError: null });
  await s.watch.stop();
});
