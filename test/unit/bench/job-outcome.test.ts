// A figure measured over an indexing job counts what the job left undone (bench/job-outcome.ts). At 72dab2a the
// scale and index benches took a job as done when `fileproxy reindex` exited 0 or the admin channel's `finished`
// resolved, whatever its state and counts; these are the cases that passed then.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobShortfalls } from '../../../bench/job-outcome.js';
import { jobInfo } from './job-info.js';

describe('job outcome', () => {
  const all = { pages: 100, count: 'indexed' as const };

  it('counts nothing for a job that finished with every page written', () => {
    assert.equal(jobShortfalls('reindex', jobInfo(100, { indexed: 120 }), all).total, 0);
  });

  it('counts a job that ended failed or cancelled', () => {
    assert.equal(jobShortfalls('reindex', jobInfo(100, { state: 'failed', errors: ['index unavailable'] }), all).toString(), 'reindex: job failed ×1, job errors ×1');
    assert.equal(jobShortfalls('reindex', jobInfo(100, { state: 'cancelled' }), all).toString(), 'reindex: job cancelled ×1');
  });

  it('counts failed pages, skipped folders and pages not written', () => {
    assert.equal(jobShortfalls('reindex', jobInfo(100, { failed: 3, skippedFolders: 2, indexed: 95 }), all).toString(), 'reindex: pages failed ×3, folders skipped ×2, pages not indexed ×5');
  });

  it('judges a pass by the pages it walked', () => {
    assert.equal(jobShortfalls('pass', jobInfo(100, { kind: 'pass', indexed: 0, seen: 90 }), { pages: 100, count: 'seen' }).toString(), 'pass: pages not seen ×10');
  });

  it('accepts a job the bench stopped itself, with fewer pages, but not its failures', () => {
    const stopped = { ...all, stoppedByBench: true };
    assert.equal(jobShortfalls('reindex', jobInfo(100, { state: 'cancelled', indexed: 40 }), stopped).total, 0);
    assert.equal(jobShortfalls('reindex', jobInfo(100, { state: 'cancelled', indexed: 40, failed: 1 }), stopped).toString(), 'reindex: pages failed ×1');
    assert.equal(jobShortfalls('reindex', jobInfo(100, { state: 'failed', indexed: 40 }), stopped).toString(), 'reindex: job failed ×1, pages not indexed ×60');
  });
});
