/**
 * Whether an indexing job a figure was measured over did all its work. The admin channel's `finished` and
 * `fileproxy reindex`'s exit code say only that the job ended: a job in state `failed` or `cancelled`, pages that
 * could not be read or written, folders skipped or fewer pages than seeded still end. A time measured over such a
 * job is no time of the work, so each shortfall counts as unexpected in the figure's verdict (results.ts judged()).
 */
import type { JobInfo } from '../src/indexing/reconciler/jobs.js';
import { Unexpected } from './results.js';

export interface JobExpectation {
  /** The pages the job must have handled at least: written (`indexed`) for a reindex, walked (`seen`) for a pass. */
  pages: number;
  count: 'indexed' | 'seen';
  /** The bench stopped the job itself (Ctrl-C after a window): `cancelled` is then expected, and fewer pages. */
  stoppedByBench?: boolean;
}

/** The job's shortfalls, counted under `target` (`reindex`, `no-change pass`): none when it did all its work. */
export function jobShortfalls(target: string, job: JobInfo, expected: JobExpectation): Unexpected {
  const stopped = expected.stoppedByBench === true && job.state === 'cancelled';
  const unexpected = new Unexpected()
    .add(target, `job ${job.state}`, job.state === 'finished' || stopped ? 0 : 1)
    .add(target, 'job errors', job.errors.length)
    .add(target, 'pages failed', job.failed)
    .add(target, 'folders skipped', job.skippedFolders);
  return stopped ? unexpected : unexpected.add(target, `pages not ${expected.count}`, expected.pages - job[expected.count]);
}
