// SMB2 CHANGE_NOTIFY against the testbed DC: a tree watch on the share root held by the indexer account sees what
// other clients do (the project's client as a teacher, smbclient with encryption), over an encrypted session;
// cancelling ends it; an answer that cannot carry everything that changed is reported as an overflow; what Samba
// reports to it at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Access,
  CreateOptions,
  Disposition,
  FileAction,
  FileNotifyChange,
  SmbClient,
  SmbPool,
  type SmbShare,
  type WatchChange,
} from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import { sambaClientAs } from '../../support/smb-logons.js';
import { env, removeTree, scratchName, shareFor, smbcacls, userAccount } from './testbed.js';

const EVERYTHING_THE_WATCHER_ASKS = FileNotifyChange.FILE_NAME | FileNotifyChange.DIR_NAME | FileNotifyChange.LAST_WRITE | FileNotifyChange.SECURITY;

/** Changes as they arrive, and a way to wait for one. */
class Recorder {
  readonly changes: WatchChange[] = [];
  overflows = 0;
  private waiters: (() => void)[] = [];
  readonly onChanges = (batch: WatchChange[] | 'overflow'): void => {
    if (batch === 'overflow') this.overflows++;
    else this.changes.push(...batch);
    for (const w of this.waiters.splice(0)) w();
  };

  async waitFor(what: string, found: (changes: WatchChange[]) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!found(this.changes)) {
      const left = deadline - Date.now();
      if (left <= 0) assert.fail(`no ${what} within ${timeoutMs} ms; saw ${JSON.stringify(this.changes)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const has = (action: number, path: string) => (changes: WatchChange[]) => changes.some((c) => c.action === action && c.path === path);

describe('CHANGE_NOTIFY on the testbed share root', () => {
  // As the service connects: SMB 3.x only, every message encrypted.
  const client = new SmbClient(new SmbPool({ minDialect: '3.0', requireEncryption: true }));
  let watched: SmbShare;
  let teacher: SmbShare;
  const dir = scratchName();
  const local = mkdtempSync(join(tmpdir(), 'watch-test-'));

  before(async () => {
    watched = shareFor(client, env.indexer);
    teacher = shareFor(client, userAccount('anna'));
  });

  after(async () => {
    await removeTree(teacher, dir).catch(() => undefined);
    await client.close();
    rmSync(local, { recursive: true, force: true });
  });

  test('a tree watch sees pages created, renamed, uploaded and deleted by another client, then ends when cancelled', async () => {
    const recorder = new Recorder();
    const controller = new AbortController();
    let armed!: () => void;
    const armedOnce = new Promise<void>((resolve) => (armed = resolve));
    const watching = watched.watch({ filter: EVERYTHING_THE_WATCHER_ASKS, signal: controller.signal, onChanges: recorder.onChanges, onArmed: armed });
    await armedOnce;

    await teacher.mkdir(`${dir}/.wiki`, { recursive: true });
    await recorder.waitFor('new folder', has(FileAction.ADDED, `${dir}/.wiki`));
    await teacher.writeFile(`${dir}/.wiki/seite.md`, '# Seite\n');
    // Written in place (SmbShare.writeFile): a new file is ADDED. (Samba reports a later in-place write of it to a
    // watch of its own folder, but not to this tree watch of the share root.)
    await recorder.waitFor('new page', has(FileAction.ADDED, `${dir}/.wiki/seite.md`));
    await teacher.rename(`${dir}/.wiki/seite.md`, `${dir}/.wiki/umbenannt.md`);
    await recorder.waitFor('rename', (c) => has(FileAction.RENAMED_OLD_NAME, `${dir}/.wiki/seite.md`)(c) && has(FileAction.RENAMED_NEW_NAME, `${dir}/.wiki/umbenannt.md`)(c));

    // smbclient, encrypted, as another teacher: a plain create and write of the file itself.
    const file = join(local, 'ueber.md');
    writeFileSync(file, '# Über smbclient\n');
    const ben = userAccount('ben');
    const upload = sambaClientAs(env, 'schule', ben, ['--client-protection=encrypt', '-c', `put ${file} ${dir}\\.wiki\\ueber.md`]);
    execFileSync('smbclient', upload.args, { stdio: 'pipe', env: upload.env });
    await recorder.waitFor('smbclient upload', has(FileAction.ADDED, `${dir}/.wiki/ueber.md`));

    await teacher.unlink(`${dir}/.wiki/umbenannt.md`);
    await recorder.waitFor('deletion', has(FileAction.REMOVED, `${dir}/.wiki/umbenannt.md`));

    controller.abort();
    await watching; // resolves: cancelled, not failed
    const seen = recorder.changes.length;
    await teacher.writeFile(`${dir}/.wiki/danach.md`, 'x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(recorder.changes.length, seen, 'nothing reported after the cancel');
    assert.equal(recorder.overflows, 0);
  });

  test('more changes between two requests than an answer carries come back as STATUS_NOTIFY_ENUM_DIR (an overflow)', async () => {
    await teacher.mkdir(`${dir}/burst`, { recursive: true });
    await watched.withTree(async (tree) => {
      const handle = await FileHandle.open(tree, { name: '', desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES | Access.SYNCHRONIZE, disposition: Disposition.OPEN, createOptions: CreateOptions.DIRECTORY_FILE });
      try {
        // The first request registers the watch on the handle; a change answers it.
        const first = handle.changeNotify(EVERYTHING_THE_WATCHER_ASKS, true);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await teacher.writeFile(`${dir}/burst/erste.txt`, 'x');
        assert.equal((await first).kind, 'changes');
        // Not asked again yet: the server collects what changes meanwhile on the handle.
        await Promise.all(Array.from({ length: 1200 }, (_, i) => teacher.mkdir(`${dir}/burst/ordner-mit-langem-namen-${String(i).padStart(5, '0')}`)));
        const next = await handle.changeNotify(EVERYTHING_THE_WATCHER_ASKS, true);
        assert.equal(next.kind, 'overflow');
      } finally {
        await handle.close();
      }
    });
  });

  test('what Samba reports to a tree watch of the share root (src/indexing/reconciler/share-watch.ts relies on it): a write that changes a file\'s length, as SIZE; neither a write of the same length in place nor an ACL change below the root, whatever is asked', async () => {
    const filters = Object.entries(FileNotifyChange);
    const recorders = filters.map(() => new Recorder());
    const controller = new AbortController();
    const watching = filters.map(([, bit], i) => new Promise<void>((armed) => {
      void watched.watch({ filter: bit, signal: controller.signal, onChanges: recorders[i]!.onChanges, onArmed: armed });
    }));
    await Promise.all(watching);
    const page = `${dir}/bericht/.wiki/seite.md`;
    const reported = () => filters.filter((_, i) => recorders[i]!.changes.some((c) => c.path === page)).map(([name]) => name);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
    try {
      await teacher.mkdir(`${dir}/bericht/.wiki`, { recursive: true });
      await teacher.writeFile(page, '# Bericht eins\n');
      await settle();
      assert.ok(reported().includes('FILE_NAME'), `a new page: ${reported().join(', ')}`);
      recorders.forEach((r) => r.changes.splice(0));
      await teacher.writeFile(page, '# Bericht zwei\n');
      await settle();
      assert.deepEqual(reported(), [], 'the same length written in place');
      await teacher.writeFile(page, '# Bericht Nummer drei\n');
      await settle();
      assert.ok(reported().includes('SIZE'), `another length: ${reported().join(', ')}`);
      recorders.forEach((r) => r.changes.splice(0));
      smbcacls('schule', page, ['--add', `ACL:${env.users['ben']!.sid}:ALLOWED/0x0/READ`]);
      await settle();
      assert.deepEqual(reported(), [], 'an ACL change');
    } finally {
      controller.abort();
    }
  });
});
