// The pace of background work end to end (reconciler.pace): while requests keep the HTTP threads busy, a reindex at
// `gentle` is slowed down by the event-loop delays the fronts report (its windows over the budget are counted in
// /healthz), and still indexes every page. A front that did not report, or a pacer that did not hear it, leaves
// the count at 0. The pacer's rule itself: test/unit/pacing/pacer.test.ts; what each pace costs: bench/scale.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PacerStats } from '../../../src/pacing/pacer.js';
import { reconcilerDetails } from '../wiki/wiki-service.js';
import { runJob, scratchService, writeFiles } from './support.js';

/**
 * Few pages, and large ones: the fronts report their delay from their second 100 ms tick after the pacer begins to
 * listen (src/pacing/loop-delay-reporter.ts), so a reindex that ends sooner cannot be slowed. 100 pages of a line
 * each took 140-153 ms unpaced, and in one CI run the paced reindex ended after 282 ms without a window over the
 * budget; these 24 pages of 370 KB took 1.2-1.3 s unpaced, and at the pace's floor (5 pages/s) the rest of them
 * takes seconds, not minutes.
 */
const PAGES = 24;
const PAGE_TEXT = 'Im Takt der Stunde liest, rendert und schreibt der Neuaufbau jede Seite.\n\n'.repeat(5_000);

describe('reconciler.pace', () => {
  const fixture = scratchService('_pace', async ({ admin, scratch }) => {
    await writeFiles(admin, Array.from({ length: PAGES }, (_, i): [string, string] => [`${scratch}/Klasse-${i % 10}/.wiki/seite-${i}.md`, `# Seite ${i}\n\nTempo ${i}.\n\n${PAGE_TEXT}`]));
  }, { watch: false, pace: 'gentle' });
  const pace = async () => ((await reconcilerDetails(fixture.service)) as unknown as { pace: PacerStats }).pace;

  it('slows a reindex down while the fronts wait for a core, and the reindex still indexes every page', async () => {
    assert.equal((await pace()).pace, 'gentle');
    const before = (await pace()).slowedWindows;
    let busy = true;
    // Eight requests at a time for the whole reindex: answering them is what keeps the fronts' event loops late.
    const load = (async () => {
      while (busy) {
        await Promise.all(Array.from({ length: 8 }, async () => (await fetch(`${fixture.service.url}/healthz?details=1`)).arrayBuffer()));
      }
    })();
    const job = await runJob(fixture.service, { kind: 'reindex', shares: ['schule'] }).finally(() => (busy = false));
    await load;
    assert.equal(job.state, 'finished');
    assert.equal(job.failed, 0);
    assert.ok(job.indexed >= PAGES, `indexed ${job.indexed} pages`);
    const after = await pace();
    assert.ok(after.slowedWindows > before, `the reindex slowed down (${after.slowedWindows - before} windows over the budget)`);
  });
});
