// The change watch's decisions, with a scripted SMB watch: which events become page changes (collected until quiet,
// renames as moves), which become a pass of the share, and what is dropped after parsing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageChange } from '../../../src/wiki/page-change.js';
import { ShareWatch } from '../../../src/reconcile/share-watch.js';
import { silentLog } from '../../../src/search/log.js';
import { FileAction, type WatchChange, type WatchOptions } from '../../../src/smb/index.js';

/** A share whose root watch arms at once and hands `send` to the test; `.wiki/` folder watches are counted. */
function scripted(folders: string[] = []) {
  let send!: (changes: WatchChange[] | 'overflow') => void;
  const changes: PageChange[] = [];
  const passes: string[] = [];
  const wikiDirWatches: string[] = [];
  const watch = new ShareWatch({
    server: 'srv',
    share: 'schule',
    smb: {
      watch: (path: string, options: WatchOptions) => {
        if (path !== '') {
          wikiDirWatches.push(path);
          return new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve()));
        }
        send = options.onChanges;
        options.onArmed?.();
        return new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve()));
      },
    },
    pageChanged: (change) => {
      changes.push(change);
      return true;
    },
    requestPass: (reason) => passes.push(reason),
    indexedFolders: async () => folders,
    quietMs: 20,
    maxDelayMs: 100,
    log: silentLog,
  });
  watch.start();
  return { watch, changes, passes, wikiDirWatches, send: (c: WatchChange[] | 'overflow') => send(c) };
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
  assert.deepEqual(s.wikiDirWatches, ['A/.wiki', 'B/.wiki'], 'the .wiki folders of written pages are watched for writes and ACLs');
  await s.watch.stop();
});

test('files and folders without pages cost nothing; a folder with pages below it, an overflow and a renamed .wiki ask for one pass', async () => {
  const s = scripted(['Fachschaften/Mathe']);
  await settle();
  assert.deepEqual(s.wikiDirWatches, ['Fachschaften/Mathe/.wiki']);
  s.send([
    { action: FileAction.MODIFIED, path: 'Aushang.txt' },
    { action: FileAction.ADDED, path: 'Neu/Ordner' },
    { action: FileAction.MODIFIED, path: 'Verwaltung' },
    { action: FileAction.MODIFIED, path: 'Fachschaften/Mathe/.wiki/notes.txt' },
  ]);
  await settle();
  assert.deepEqual([s.changes, s.passes], [[], []]);
  s.send([{ action: FileAction.MODIFIED, path: 'fachschaften' }]); // its ACL: the pages below inherit from it
  s.send('overflow');
  await settle();
  assert.equal(s.passes.length, 1, 'one pass for what came together');
  s.send([{ action: FileAction.RENAMED_NEW_NAME, path: 'Neu/.wiki' }]);
  await settle();
  assert.equal(s.passes.length, 2);
  assert.equal(s.watch.stats().overflows, 1);
  await s.watch.stop();
});
