/**
 * The reconciler's jobs and what is reported about them (health, log, the admin channel).
 * - `pass`: the drift repair over every share (periodic, or triggered); overlapping triggers share one pass. A change
 *   watch asks for passes of one share, or of folders of one share (the subtrees it saw change).
 * - `reindex`: named shares (or all), every page written again (`force`).
 * - `rebuild`: a new versioned index from every share, the alias switched at the end, then a pass.
 * Any of them may be a dry run: the differences are counted, nothing is written.
 */
import { folderKey } from '../../wiki/document-id.js';
import { addCounts, emptyCounts, type ShareCounts } from './share-pass.js';

type JobKind = 'pass' | 'reindex' | 'rebuild';

export interface JobRequest {
  kind: JobKind;
  /** For `reindex`: the shares, as named in smb.shares; omitted means all. */
  shares?: string[];
  dryRun?: boolean;
}

type JobState = 'queued' | 'running' | 'finished' | 'cancelled' | 'failed';

/** A share's part of a job. */
interface ShareReport extends ShareCounts {
  durationMs: number;
  /** Why the share could not be finished. */
  error?: string;
}

/** Everything said about a job, live while it runs; the counts are totals over its shares. */
export interface JobInfo extends ShareCounts {
  id: number;
  kind: JobKind;
  dryRun: boolean;
  shares: string[];
  /** What asked for it: `timer`, `start`, `admin`, `watch`. */
  trigger: string;
  /**
   * For a change watch's pass of folders of one share: how many folder subtrees it covers (null: the whole shares).
   * Not which: job reports are logged, and the service logs no paths.
   */
  subtrees: number | null;
  state: JobState;
  queuedAt: string;
  startedAt: string | null;
  durationMs: number;
  /** The share being worked on. */
  current: string | null;
  /** Documents the index held for the job's shares when it started: an estimate of the pages to expect. */
  expected: number | null;
  /** Every walk is done: `seen + unreadable` is the final number of pages. */
  walked: boolean;
  /** What failed as a whole: the index, a share. */
  errors: string[];
  perShare: Record<string, ShareReport>;
  rebuild?: { from: string | null; to: string; documents: number };
}

/** Whether `folder` is `root` or below it (compared as SMB compares names); everything is within the root ''. */
export function isWithin(folder: string, root: string): boolean {
  if (root === '') return true;
  const [f, r] = [folderKey(folder), folderKey(root)];
  return f === r || f.startsWith(`${r}/`);
}

export function isTerminal(state: JobState): boolean {
  return state === 'finished' || state === 'cancelled' || state === 'failed';
}

/** A job in the reconciler's queue. */
export class Job {
  readonly info: JobInfo;
  readonly controller = new AbortController();
  /** The folders (as written) whose subtrees a pass covers, none named: the whole shares. Grows while queued. */
  readonly folders: string[] | null;
  private readonly listeners = new Set<(info: JobInfo) => void>();
  private resolveDone!: (info: JobInfo) => void;
  readonly done = new Promise<JobInfo>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(id: number, request: Required<JobRequest>, trigger: string, folders: string[] | null = null) {
    this.folders = folders;
    this.info = {
      id,
      kind: request.kind,
      dryRun: request.dryRun,
      shares: request.shares,
      trigger,
      subtrees: folders?.length ?? null,
      state: 'queued',
      queuedAt: new Date().toISOString(),
      startedAt: null,
      durationMs: 0,
      current: null,
      expected: null,
      walked: false,
      ...emptyCounts(),
      errors: [],
      perShare: {},
    };
  }

  /** Adds a folder's subtree to a queued pass of folders, dropping the folders already in it that it covers. */
  addFolder(folder: string): void {
    if (this.folders === null || this.folders.some((f) => isWithin(folder, f))) return;
    const kept = this.folders.filter((f) => !isWithin(f, folder));
    this.folders.splice(0, this.folders.length, ...kept, folder);
    this.info.subtrees = this.folders.length;
  }

  /** Whether this pass covers `folder` of `share` ('' for all of it). */
  covers(share: string, folder: string): boolean {
    if (this.info.kind !== 'pass' || this.info.dryRun || !this.info.shares.includes(share)) return false;
    return this.folders === null || this.folders.some((f) => isWithin(folder, f));
  }

  /** The report of a share, created when the job reaches it; the pass fills in its counts. */
  shareReport(share: string): ShareReport {
    const report: ShareReport = { ...emptyCounts(), durationMs: 0 };
    this.info.perShare[share] = report;
    return report;
  }

  /** A copy of the current state with the totals over the shares; `durationMs` is up to date while it runs. */
  snapshot(): JobInfo {
    const info = structuredClone(this.info);
    const totals = emptyCounts();
    for (const report of Object.values(info.perShare)) addCounts(totals, report);
    Object.assign(info, totals);
    if (info.state === 'running' && info.startedAt !== null) info.durationMs = Date.now() - Date.parse(info.startedAt);
    return info;
  }

  /** Calls `listener` with each update until the job ends; returns the unsubscribe function. */
  subscribe(listener: (info: JobInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener the current state. */
  publish(): void {
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }

  end(state: Exclude<JobState, 'queued' | 'running'>): void {
    this.info.state = state;
    this.info.current = null;
    if (this.info.startedAt !== null) this.info.durationMs = Date.now() - Date.parse(this.info.startedAt);
    this.publish();
    this.listeners.clear();
    this.resolveDone(this.snapshot());
  }
}
