// The drift reconciler of the running service against the real testbed: pages written, changed, renamed,
// re-permissioned (on the file, and on a folder with inheritance propagated) and deleted behind the service's
// back, over SMB as the DC administrator and straight on the share's disk. After one pass the index matches
// both shares document by document; overlapping pass triggers run one pass; a reindex waits for a running pass.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startJob } from '../../../src/control-socket/client.js';
import { documentId } from '../../../src/wiki/document-id.js';
import { serviceIndex } from '../../support/service.js';
import { removeTree, smbcacls } from '../smb/testbed.js';
import { assertSameDocuments, expectedFacts, indexedFacts, reconcilerStatus, runJob, scratchService, SERVER, shareAs, socketOf, writeFiles, type DocumentFacts } from './support.js';

const BUILTIN_ADMINISTRATORS = 'S-1-5-32-544';
const READ = '0x1200a9';
const FULL = '0x1f01ff';

describe('drift repair in one pass', () => {
  const fixture = scratchService('_recon', async ({ admin, scratch }) => {
    await writeFiles(
      admin,
      [
        '.wiki/index.md', '.wiki/bleibt.md', '.wiki/geaendert.md', '.wiki/geloescht.md', '.wiki/Gross.md', '.wiki/versteckt.md',
        'Gruppe/.wiki/a.md', 'Gruppe/.wiki/b.md', 'Weg/.wiki/x.md', 'Weg/.wiki/y.md', 'Weg/Tiefer/.wiki/z.md', 'Privat/.wiki/geheim.md',
      ].map((path): [string, string] => [`${scratch}/${path}`, `# ${path}\n\nAnfangstext der Seite ${path}.\n`]),
    );
  }, { watch: false });
  const at = (path: string) => `${fixture.scratch}/${path}`;
  /** Documents of other tests' scratch folders (top-level names starting with '_') come and go meanwhile. */
  const ours = (facts: Map<string, DocumentFacts>) =>
    new Map([...facts].filter(([, f]) => !f.path.startsWith('_') || f.path.startsWith(`${fixture.scratch}/`)));
  const idOf = (path: string) => documentId(SERVER, 'schule', at(path));

  it('indexed the pages that were there when it started', async () => {
    const indexed = await indexedFacts(fixture.es, 'schule');
    for (const path of ['.wiki/index.md', 'Weg/Tiefer/.wiki/z.md', 'Privat/.wiki/geheim.md']) assert.ok(indexed.has(idOf(path)), path);
  });

  it('after one pass the index matches both shares document by document', async () => {
    const sids = { verwaltung: fixture.env.groups['Verwaltung']!, indexer: fixture.env.users[fixture.env.indexer.user]!.sid };
    // New pages, in the scratch root and in new nested folders, one of them written straight on the DC's disk.
    await writeFiles(fixture.admin, [
      [at('.wiki/neu.md'), '# Neu\n\nHinter dem Rücken geschrieben.\n'],
      [at('Neu/.wiki/index.md'), '# Neu\n'],
      [at('Neu/Unter/.wiki/tief.md'), '# Tief\n'],
    ]);
    const disk = fixture.env.smb.shares.find((s) => s.name === 'schule')!.path;
    await writeFile(join(disk, fixture.scratch, '.wiki', 'vom-server.md'), '# Vom Server\n\nOhne den Proxy auf die Platte gelegt.\n');
    // A changed page, a deleted page, a deleted folder tree, a page renamed to another letter case.
    await fixture.admin.writeFile(at('.wiki/geaendert.md'), '# Geändert\n\nDer Text ist jetzt ein anderer und länger als vorher.\n');
    await fixture.admin.unlink(at('.wiki/geloescht.md'));
    await removeTree(fixture.admin, at('Weg'));
    await fixture.admin.rename(at('.wiki/Gross.md'), at('.wiki/gross.md'));
    // New ACLs: one page for Verwaltung only, one page the indexer may no longer read, and a folder ACE
    // propagated to the pages below it.
    smbcacls('schule', at('Privat/.wiki/geheim.md'), [
      '--sddl', '--set', `D:P(A;;${READ};;;${sids.verwaltung})(A;;${READ};;;${sids.indexer})(A;;${FULL};;;BA)`,
    ]);
    smbcacls('schule', at('.wiki/versteckt.md'), ['--sddl', '--set', `D:P(A;;${FULL};;;BA)`]);
    smbcacls('schule', at('Gruppe'), ['--sddl', '--propagate-inheritance', '--add', `D:(A;OICI;${READ};;;${sids.verwaltung})`]);

    const pass = await runJob(fixture.service, { kind: 'pass' });
    assert.equal(pass.state, 'finished', JSON.stringify(pass.errors));
    assert.deepEqual(pass.errors, []);
    assert.ok(pass.added >= 4, `added ${pass.added}`); // neu, Neu/index, Neu/Unter/tief, gross (+ vom-server if readable)
    assert.ok(pass.updated >= 4, `updated ${pass.updated}`); // geaendert, geheim, Gruppe/a, Gruppe/b
    assert.ok(pass.removed >= 5, `removed ${pass.removed}`); // geloescht, x, y, z, versteckt
    assert.ok(pass.unreadable >= 1, `unreadable ${pass.unreadable}`); // versteckt

    const indexed = await indexedFacts(fixture.es, 'schule');
    for (const gone of ['.wiki/geloescht.md', 'Weg/.wiki/x.md', 'Weg/.wiki/y.md', 'Weg/Tiefer/.wiki/z.md', '.wiki/versteckt.md']) {
      assert.equal(indexed.has(idOf(gone)), false, `${gone} left the index`);
    }
    assert.deepEqual(indexed.get(idOf('Privat/.wiki/geheim.md'))?.acl_allow, [BUILTIN_ADMINISTRATORS, sids.verwaltung, sids.indexer].sort());
    for (const page of ['a', 'b']) assert.ok(indexed.get(idOf(`Gruppe/.wiki/${page}.md`))!.acl_allow.includes(sids.verwaltung), `Gruppe/${page}`);
    assert.equal(indexed.get(idOf('.wiki/gross.md'))?.path, at('.wiki/gross.md'), 'the renamed page under its new spelling');

    const indexer = shareAs(fixture.smb, fixture.env, fixture.env.indexer, 'schule');
    assertSameDocuments(ours(indexed), ours(await expectedFacts(indexer, 'schule')), 'schule');
    const verwaltung = shareAs(fixture.smb, fixture.env, fixture.env.indexer, 'verwaltung');
    assertSameDocuments(await indexedFacts(fixture.es, 'verwaltung'), await expectedFacts(verwaltung, 'verwaltung'), 'verwaltung');
  });

  it('a second pass finds nothing to do', async () => {
    // Other tests may change their own pages meanwhile: what must not change is every document of this one.
    const indexedAt = async () => {
      await fixture.es.indices.refresh({ index: serviceIndex });
      const { hits } = await fixture.es.search<{ path: string; indexed_at: string }>({
        index: serviceIndex, size: 100, _source: ['path', 'indexed_at'], query: { prefix: { path: `${fixture.scratch}/` } },
      });
      return new Map(hits.hits.map((hit) => [hit._source!.path, hit._source!.indexed_at]));
    };
    const before = await indexedAt();
    const pass = await runJob(fixture.service, { kind: 'pass' });
    assert.equal(pass.state, 'finished');
    assert.deepEqual(pass.errors, []);
    assert.ok(pass.unchanged >= before.size, `unchanged ${pass.unchanged}`);
    assert.deepEqual(await indexedAt(), before);
    assert.equal(before.size, 11);
  });

  it('two overlapping triggers run one pass', async () => {
    const socket = socketOf(fixture.service);
    const before = (await reconcilerStatus(fixture.service)).passes;
    const [first, second] = await Promise.all([startJob(socket, { kind: 'pass' }), startJob(socket, { kind: 'pass' })]);
    const [a, b] = await Promise.all([first.finished, second.finished]);
    assert.equal(a.id, b.id, 'both triggers got the same pass');
    assert.equal((await reconcilerStatus(fixture.service)).passes, before + 1);
  });

  it('a reindex asked for during a pass starts after it', async () => {
    const socket = socketOf(fixture.service);
    const pass = await startJob(socket, { kind: 'pass' });
    const reindex = await startJob(socket, { kind: 'reindex', shares: ['schule'], dryRun: true });
    const [passInfo, reindexInfo] = await Promise.all([pass.finished, reindex.finished]);
    assert.equal(reindexInfo.state, 'finished');
    const passEnd = Date.parse(passInfo.startedAt!) + passInfo.durationMs;
    assert.ok(Date.parse(reindexInfo.startedAt!) >= passEnd, 'the reindex did not overlap the pass');
  });
});
