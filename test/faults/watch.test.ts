// Fault: the DC's SMB server killed under the service's change watch (reconciler.watch), which holds one handle: the
// share root's. While it is down a page appears in a `.wiki/` folder by another way than SMB (straight on the
// server's disk); once the DC runs again the watch is set up again by itself (counted as a re-arm, still one handle),
// and the catch-up pass that follows the re-arm indexes the page — passes run hourly here, so nothing else would —
// reading that page only: every other page still has the version the index holds.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { JobInfo } from '../../src/indexing/reconciler/jobs.js';
import { scratchService } from '../integration/reconcile/support.js';
import { eventually, reconcilerDetails, WikiClient, type Caller } from '../integration/wiki/wiki-service.js';
import { waitFor } from '../support/service.js';
import { killSmbd, restoreTestbed, restoreTestbedAfter } from './support/testbed-servers.js';

const ANNA: Caller = { user: 'anna', groups: ['Lehrer'] };

interface WatchDetails {
  armed: boolean;
  handles: number;
  rearms: number;
}

describe('the DC\'s SMB server killed under the change watch', () => {
  restoreTestbedAfter();
  const fixture = scratchService('_fault-watch', async ({ admin, scratch }) => {
    await admin.mkdir(`${scratch}/.wiki`, { recursive: true });
  });
  const watch = async (): Promise<WatchDetails> =>
    ((await reconcilerDetails(fixture.service)) as unknown as { watch: Record<string, WatchDetails> }).watch['schule']!;

  it('the watch comes back by itself, and the pass after it catches what changed while the server was down', async () => {
    await waitFor(async () => (await watch()).armed, 30_000);
    const before = await watch();
    const page = `${fixture.scratch}/.wiki/waehrend.md`;
    const logged = fixture.service.output().length;
    try {
      await killSmbd();
      await waitFor(async () => !(await watch()).armed, 30_000);
      // Not over SMB (there is none): Samba derives an ACL that lets everyone read such a file.
      const root = fixture.env.smb.shares.find((s) => s.name === 'schule')!.path;
      writeFileSync(join(root, page), '# Während\n\nGeschrieben als Faultwortomega fehlte.\n');
    } finally {
      await restoreTestbed();
    }
    // The watch retries at once, then after 1, 2, 5, 10, then every 30 s.
    await waitFor(async () => {
      const now = await watch();
      return now.armed && now.rearms > before.rearms;
    }, 90_000);
    assert.equal((await watch()).handles, 1);
    const api = new WikiClient(fixture.service.url, fixture.env);
    await eventually(async () => assert.deepEqual(await api.searchedPages(ANNA, { q: 'Faultwortomega' }), [`schule:${page}`]), 30_000);
    // The passes the watch asked for since the kill, as the service logged them (a DC that comes back in stages may
    // take the watch away twice): together they read and wrote the missed page only.
    const passes = fixture.service.output().slice(logged).split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Partial<JobInfo> & { msg?: string })
      .filter((entry) => entry.msg?.startsWith('wiki pass') === true && entry.trigger === 'watch');
    assert.ok(passes.length > 0, 'a catch-up pass ran');
    const sum = (key: 'added' | 'updated' | 'removed' | 'failed') => passes.reduce((n, pass) => n + (pass[key] ?? 0), 0);
    assert.deepEqual(
      { subtrees: passes.map((pass) => pass.subtrees), added: sum('added'), updated: sum('updated'), removed: sum('removed'), failed: sum('failed') },
      { subtrees: passes.map(() => null), added: 1, updated: 0, removed: 0, failed: 0 },
      'the catch-up passes (of the share) read and wrote the missed page only',
    );
  });
});
