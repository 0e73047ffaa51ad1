// What a folder changed behind the service's back costs (reconciler.watch on, passes hourly): a class folder renamed
// over SMB is a pass of its old and its new subtree — it reads its own pages, not the share's — and a class folder
// deleted is its pages' deletions and no pass at all. Other folders' pages sit beside it in the scratch folder, and
// the share holds the testbed's seeded pages: a pass of the share would read those too.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { JobInfo } from '../../../src/indexing/reconciler/jobs.js';
import type { SmbShare } from '../../../src/smb/index.js';
import { hookSettled, reconcilerDetails, WikiClient, type Caller } from '../wiki/wiki-service.js';
import { waitFor } from '../../support/service.js';
import { scratchService, shareAs, writeFiles } from './support.js';

const ANNA: Caller = { user: 'anna', groups: ['Lehrer'] };
const PAGES = 10;

interface Details {
  passes: number;
  lastJob: JobInfo | null;
  bulk: { upserted: number; deleted: number };
  watch: Record<string, { armed: boolean; handles: number; folderPasses: number }>;
}

describe('a folder renamed or deleted over SMB costs its own pages', () => {
  const word = `Umfangwort${Date.now()}`;
  const classFolder = (scratch: string, name: string) =>
    Array.from({ length: PAGES }, (_, i): [string, string] => [`${scratch}/${name}/Fach-${i % 3}/.wiki/seite-${i}.md`, `# Seite ${i}\n\n${word}${name}\n`]);
  const fixture = scratchService('_scope', async ({ admin, scratch }) => {
    await writeFiles(admin, [...classFolder(scratch, 'Klasse-5a'), ...classFolder(scratch, 'Klasse-6b'), ...classFolder(scratch, 'Bleibt')]);
  });
  let api: WikiClient;
  let anna: SmbShare;
  const details = async () => (await reconcilerDetails(fixture.service)) as unknown as Details;
  const found = async (name: string) => (await api.searchedPages(ANNA, { q: `${word}${name}` })).sort();

  before(async () => {
    api = new WikiClient(fixture.service.url, fixture.env);
    anna = shareAs(fixture.smb, fixture.env, { user: 'anna', password: fixture.env.users['anna']!.password }, 'schule');
    await waitFor(async () => (await details()).watch['schule']!.armed, 30_000);
    assert.equal((await found('Klasse-5a')).length, PAGES, 'indexed by the first pass');
  });

  it(`a renamed folder of ${PAGES} pages: one pass of its two names that sees its ${PAGES} pages only, and they are found under the new name`, async () => {
    const before = await details();
    await anna.rename(`${fixture.scratch}/Klasse-5a`, `${fixture.scratch}/Klasse-6a`);
    const renamed = (await found('Klasse-5a')).map((p) => p.replace('Klasse-5a', 'Klasse-6a'));
    await waitFor(async () => JSON.stringify(await found('Klasse-5a')) === JSON.stringify(renamed), 10_000);
    await waitFor(async () => (await details()).lastJob?.state === 'finished', 10_000);
    const { lastJob, passes } = await details();
    assert.equal(passes, before.passes, 'no pass of every share');
    assert.ok(lastJob !== null && lastJob.id !== before.lastJob?.id);
    const { trigger, subtrees, seen, added, removed, unchanged } = lastJob;
    assert.deepEqual({ trigger, subtrees, seen, added, removed, unchanged }, { trigger: 'watch', subtrees: 2, seen: PAGES, added: PAGES, removed: PAGES, unchanged: 0 });
  });

  it(`a deleted folder of ${PAGES} pages: ${PAGES} deletions and no pass`, async () => {
    // What the searches of the test before asked of the hook (the live ACL check reports pages it finds gone) is
    // not this test's.
    const before = (await hookSettled(fixture.service)) as unknown as Details;
    for (const [path] of classFolder(fixture.scratch, 'Klasse-6b')) await anna.unlink(path);
    for (let i = 0; i < 3; i++) {
      await anna.rmdir(`${fixture.scratch}/Klasse-6b/Fach-${i}/.wiki`);
      await anna.rmdir(`${fixture.scratch}/Klasse-6b/Fach-${i}`);
    }
    await anna.rmdir(`${fixture.scratch}/Klasse-6b`);
    // Counted before anyone searches: a search meanwhile would have the live ACL check hide and report the pages
    // it finds gone, which counts as deletions too.
    await waitFor(async () => (await details()).bulk.deleted - before.bulk.deleted >= PAGES, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // a pass asked for would have started by now
    const after = await details();
    assert.equal(after.lastJob?.id, before.lastJob?.id, `no pass followed: ${JSON.stringify(after.lastJob)}`);
    assert.equal(after.bulk.deleted - before.bulk.deleted, PAGES);
    assert.deepEqual(await found('Klasse-6b'), []);
    assert.equal((await found('Bleibt')).length, PAGES, 'the folder beside it is untouched');
  });
});
