// A job report as the reconciler gives one (src/indexing/reconciler/jobs.ts), for the bench verdicts' unit tests.
import type { JobInfo } from '../../../src/indexing/reconciler/jobs.js';

/** A reindex that finished with all `pages` seen and written; `overrides` spoil it. */
export function jobInfo(pages: number, overrides: Partial<JobInfo> = {}): JobInfo {
  return {
    id: 1, kind: 'reindex', dryRun: false, shares: ['schule'], trigger: 'admin', subtrees: null, state: 'finished', queuedAt: '', startedAt: '',
    durationMs: pages, current: null, expected: pages, walked: true, errors: [], perShare: {},
    seen: pages, added: 0, updated: 0, unchanged: pages, indexed: pages, removed: 0, unreadable: 0, failed: 0, skippedFolders: 0,
    ...overrides,
  };
}
