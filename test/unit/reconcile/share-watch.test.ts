// The change watch's decisions, with a scripted SMB watch: which events become page changes (collected until quiet,
// renames as moves), which become a pass of the share, and what is dropped after parsing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageChange } from '../../../src/wiki/page-change.js';
import { ShareWatch } from '../../../src/reconcile/share-watch.js';
import { silentLog } from '../../../src/search/log.js';
import { FileAction, NtStatus, SmbStatusError, type SmbStat, type WatchChange, type WatchOptions } from '../../../src/smb/index.js';

/**
 * A share whose root watch arms at once and hands `send` to the test; `.wiki/` folder watches are counted (and
 * those open now kept, with a way to end one as the server does), `files` is what a listing of a folder finds.
 */
function scripted(folders: string[] = [], files: Record<string, string[]> = {}) {
  let send!: (changes: WatchChange[] | 'overflow') => void;
  const changes: PageChange[] = [];
  const passes: string[] = [];
  const wikiDirWatches: string[] = [];
  const openWikiDirs = new Set<string>();
  const endings = new Map<string, (error: Error) => void>();
  const watch = new ShareWatch({
    server: 'srv',
    share: 'schule',
    smb: {
      watch: (path: string, options: WatchOptions) => {
        if (path !== '') {
          wikiDirWatches.push(path);
          openWikiDirs.add(path);
          return new Promise<void>((resolve, reject) => {
            options.signal.addEventListener('abort', () => resolve(void openWikiDirs.delete(path)));
            endings.set(path, (error) => {
              openWikiDirs.delete(path);
              reject(error);
            });
          });
        }
        send = options.onChanges;
        options.onArmed?.();
        return new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve()));
      },
      readdir: async (path: string) => {
        const names = files[path];
        if (names === undefined) throw new Error(`${path}: not found`);
        return names.map((name) => ({ path: `${path}/${name}`, isDirectory: false }) as SmbStat);
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
  const end = (path: string, error: Error) => endings.get(path)!(error);
  return { watch, changes, passes, wikiDirWatches, openWikiDirs, end, send: (c: WatchChange[] | 'overflow') => send(c) };
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
  assert.deepEqual(s.wikiDirWatches, ['A/.wiki', 'B/.wiki'], 'the .wiki folders of written pages are watched for ACL changes');
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

test('a page removed closes the watch of its .wiki folder at once (which may be deleted next); it is set up again only while pages remain', async () => {
  const s = scripted(['A', 'B'], { 'A/.wiki': ['bleibt.md', 'notes.txt'], 'B/.wiki': ['notes.txt'] });
  await settle();
  assert.deepEqual([...s.openWikiDirs].sort(), ['A/.wiki', 'B/.wiki']);
  s.send([{ action: FileAction.REMOVED, path: 'A/.wiki/weg.md' }, { action: FileAction.REMOVED, path: 'B/.wiki/letzte.md' }]);
  assert.deepEqual([...s.openWikiDirs], [], 'closed before the changes are even collected');
  await settle();
  assert.deepEqual([...s.openWikiDirs], ['A/.wiki'], 'A still holds a page, B does not');
  s.send([{ action: FileAction.RENAMED_OLD_NAME, path: 'A/.wiki/bleibt.md' }, { action: FileAction.RENAMED_NEW_NAME, path: 'C/.wiki/bleibt.md' }]);
  await settle();
  assert.deepEqual([...s.openWikiDirs].sort(), ['A/.wiki', 'C/.wiki'], 'A listed again (the scripted listing still shows a page), C written to');
  await s.watch.stop();
  assert.deepEqual([...s.openWikiDirs], []);
});

test('a removal lets go of the .wiki watches below the parent of its folder (not of the whole share), each set up again while it holds pages', async () => {
  const holding = ['seite.md'];
  const s = scripted(['S/K1', 'S/K1/Mathe', 'S/K1/Deutsch', 'S/K2/Mathe', 'Oben'], {
    'S/K1/.wiki': holding, 'S/K1/Mathe/.wiki': [], 'S/K1/Deutsch/.wiki': holding, 'S/K2/Mathe/.wiki': holding, 'Oben/.wiki': holding,
  });
  await settle();
  const all = ['Oben/.wiki', 'S/K1/.wiki', 'S/K1/Deutsch/.wiki', 'S/K1/Mathe/.wiki', 'S/K2/Mathe/.wiki'];
  assert.deepEqual([...s.openWikiDirs].sort(), all);
  // A client deleting S/K1 deletes Mathe's page first: Deutsch's watch and S/K1's own go too, before it gets there.
  s.send([{ action: FileAction.REMOVED, path: 'S/K1/Mathe/.wiki/seite.md' }]);
  assert.deepEqual([...s.openWikiDirs].sort(), ['Oben/.wiki', 'S/K2/Mathe/.wiki']);
  await settle();
  assert.deepEqual([...s.openWikiDirs].sort(), ['Oben/.wiki', 'S/K1/.wiki', 'S/K1/Deutsch/.wiki', 'S/K2/Mathe/.wiki'], 'watched again where pages remain');
  // A page of a folder in the share root: only that folder's watch.
  s.send([{ action: FileAction.REMOVED, path: 'Oben/.wiki/alt.md' }]);
  assert.deepEqual([...s.openWikiDirs].sort(), ['S/K1/.wiki', 'S/K1/Deutsch/.wiki', 'S/K2/Mathe/.wiki']);
  await settle();
  // The server ends a watch because its folder is being deleted (STATUS_DELETE_PENDING): the folders around it go too.
  s.end('S/K1/Deutsch/.wiki', new SmbStatusError(NtStatus.DELETE_PENDING, 'CHANGE_NOTIFY'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([...s.openWikiDirs].sort(), ['Oben/.wiki', 'S/K2/Mathe/.wiki']);
  // A folder with pages removed: every .wiki watch below its parent.
  await settle();
  s.send([{ action: FileAction.REMOVED, path: 'S/K1' }]);
  assert.deepEqual([...s.openWikiDirs].sort(), ['Oben/.wiki']);
  await s.watch.stop();
});

test('a pass that ends just after a page removal does not open the closed .wiki watch again, though the index still lists its folder', async () => {
  const s = scripted(['A', 'B'], { 'B/.wiki': ['seite.md'] });
  await settle();
  assert.deepEqual([...s.openWikiDirs].sort(), ['A/.wiki', 'B/.wiki']);
  // The client deletes A's last page, then A/.wiki, then A: the page-deleted has not reached the index yet.
  s.send([{ action: FileAction.REMOVED, path: 'A/.wiki/seite.md' }]);
  await s.watch.reloadFolders();
  assert.deepEqual([...s.openWikiDirs], ['B/.wiki'], 'A/.wiki stays closed until the moment of quiet');
  await settle();
  assert.deepEqual([...s.openWikiDirs], ['B/.wiki'], 'A/.wiki is gone: not watched again');
  await s.watch.reloadFolders();
  assert.deepEqual([...s.openWikiDirs].sort(), ['A/.wiki', 'B/.wiki'], 'after the quiet, a reload watches again what the index lists');
  await s.watch.stop();
});
