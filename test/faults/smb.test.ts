// Fault: the DC's SMB server killed. Samba AD DC runs smbd as a task of its `samba` master (`smbd --foreground`,
// one forked child per connection); the test SIGKILLs that smbd by the pid Samba recorded. Samba 4.17 takes the
// end of its SMB task as fatal and stops the whole DC, LDAPS included; the outage is therefore the DC's, and the
// wiki caller's login and groups come from the service's caches (warmed before the kill).
// Search keeps answering from the index, WebDAV answers 503 quickly (well before smb.request_timeout, 30 s) and
// no request hangs; once the DC runs again, WebDAV works again with the same service process.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scratchService } from '../integration/reconcile/support.js';
import { assertNothingCrashed } from '../support/health.js';
import { createScratchWiki, describeOutcomes, pageContent, pagePath, ServiceCalls, type Outcome } from './support/load.js';
import { killSmbd, restoreTestbed, restoreTestbedAfter } from './support/testbed-servers.js';

/** "Quickly": a fraction of smb.request_timeout (30 s), with room for a slow machine. */
const FAST_MS = 5_000;

function assertBackendUnavailable(outcome: Outcome): void {
  assert.equal(outcome.status, 503, describeOutcomes([outcome]));
  assert.equal((outcome.json as { error?: string }).error, 'backend_unavailable', describeOutcomes([outcome]));
  assert.ok(outcome.ms < FAST_MS, `answered within ${FAST_MS} ms: ${describeOutcomes([outcome])}`);
}

function withoutScores(answer: unknown): unknown {
  const { hits, ...rest } = answer as { hits: { score: number }[] };
  return { ...rest, hits: hits.map(({ score: _score, ...hit }) => hit) };
}

describe('the DC\'s SMB server killed', () => {
  restoreTestbedAfter();
  const fixture = scratchService('_fault-smb');

  it('search answers from the index, WebDAV fails fast with 503, and recovers without a restart', async () => {
    const calls = ServiceCalls.as(fixture.service.url, fixture.env);
    await createScratchWiki(calls, fixture.scratch, 2);
    const page = pagePath(fixture.scratch, 0);
    const before = await calls.search();
    assert.equal(before.status, 200);
    assert.ok((before.json as { total: number }).total > 0, JSON.stringify(before.json));
    assert.equal((await calls.get(page)).status, 200);
    const pid = fixture.service.process.pid;

    try {
      await killSmbd();
      const search = await calls.search();
      assert.equal(search.status, 200, describeOutcomes([search]));
      // The same pages, titles and snippets; not the same scores: pages other tests index or remove meanwhile change
      // the index's term statistics.
      assert.deepEqual(withoutScores(search.json), withoutScores(before.json), 'the same hits as before the outage');
      // Several at once, each bounded far beyond FAST_MS: a hang would show as status 0.
      const writes = await Promise.all([0, 1].flatMap((n) => [calls.put(pagePath(fixture.scratch, n), pageContent(page, 1)), calls.get(pagePath(fixture.scratch, n))]));
      for (const outcome of writes) assertBackendUnavailable(outcome);
      await assertNothingCrashed(fixture.service);
    } finally {
      await restoreTestbed();
    }

    // The first requests after the outage already find the DC: the service sets its sessions up again.
    const reread = await calls.get(page);
    assert.equal(reread.status, 200, describeOutcomes([reread]));
    const put = await calls.put(page, pageContent(page, 2));
    assert.equal(put.status, 204, describeOutcomes([put]));
    const read = await calls.get(page);
    assert.equal(read.status, 200);
    assert.equal(fixture.service.process.pid, pid);
    await assertNothingCrashed(fixture.service);
  });
});
