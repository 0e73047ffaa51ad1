// Teachers delete class folders that hold wiki pages, straight on the file server while the service runs with its
// change watch on (reconciler.watch), half with smbclient's `deltree`, half in Windows Explorer's order
// (recursive-deletes.ts). The service holds nothing inside the trees users change (src/indexing/reconciler/share-watch.ts),
// so every delete succeeds at its first try, and the pages leave search by the watch alone (passes run hourly here).
// How long that took is printed; bench/index/folder-deletes.ts measures it against the target.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scratchService, shareAs } from '../reconcile/support.js';
import { recursiveDeletes } from './recursive-deletes.js';
import { reconcilerDetails } from './wiki-service.js';

/**
 * Each tree costs a few tenths of a second (an smbclient logon, then the wait until the watch takes its pages out of
 * search), one after the other: 60 here are three rounds, 30 deletes of each kind. bench/index/folder-deletes.ts
 * deletes 200 and holds the p99 against the target.
 */
const TREES = 60;

describe('class folders with wiki pages deleted by another client while the watch runs', () => {
  const fixture = scratchService('_watchdel');

  const watchHandles = async (): Promise<number> =>
    ((await reconcilerDetails(fixture.service)) as unknown as { watch: Record<string, { handles: number }> }).watch['schule']!.handles;

  it(`${TREES} class folders (3 .wiki folders each) go at the first try, half with deltree, half in Explorer's order, and leave search`, async () => {
    const handles = await watchHandles();
    const anna = shareAs(fixture.smb, fixture.env, { user: 'anna', password: fixture.env.users['anna']!.password }, 'schule');
    const { failed, goneMs } = await recursiveDeletes(fixture.service.url, fixture.env, anna, fixture.scratch, TREES);
    const p = (q: number) => goneMs[Math.ceil(q * goneMs.length) - 1]!.toFixed(0);
    process.stdout.write(`# recursive deletes that failed at the first try: ${failed.length} of ${TREES}\n`);
    process.stdout.write(`# deleted pages gone from search after (ms): p50 ${p(0.5)}, p99 ${p(0.99)}, max ${p(1)}\n`);
    assert.deepEqual(failed, [], 'every recursive delete succeeds at its first try');
    assert.equal(await watchHandles(), handles, 'the watch holds as many handles as before, whatever came and went');
  });
});
