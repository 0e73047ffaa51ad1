// The reconciler's metrics, read from what it reports in health(). Every actor thread registers its list
// (actors/<kind>/metrics.ts) in a registry of its own; src/metrics/snapshot.ts says how the supervisor
// collects and merges them.
import type { StatMetric } from '../../src/metrics/stat-metrics.js';
import type { HookBulkStats, HookStats } from '../../src/indexing/reconciler/page-changes.js';
import type { ShareWatchStats } from '../../src/indexing/reconciler/share-watch.js';
import type { WikiIndexStats } from '../../src/indexing/reconciler/wiki-index.js';
import type { BatchResult, PushBackCounts } from '../../src/indexing/operations.js';

/** The last finished pass, as the reconciler's metrics report it. */
export interface PassSummary {
  startedAt: string;
  durationMs: number;
  /** Pages found on the shares. */
  listed: number;
  /** Pages read, rendered and sent because they were missing or changed. */
  indexed: number;
  /** Documents removed because their file is gone. */
  deleted: number;
  /** Pages the indexer account may not read. */
  unreadable: number;
  /** Pages that could not be read or rendered. */
  failed: number;
  /** Operations of this pass the bulk writer could not deliver. */
  dropped: number;
  /** What failed as a whole (the index, or a share's listing). */
  errors: string[];
}

/**
 * How often Elasticsearch pushed back the batches of the indexer pool (src/indexing/indexer/send-bulk.ts), added up
 * from their answers here: the pool's threads come and go (one ends after a quiet spell) and keep no registry.
 */
export class PushBackTotals implements PushBackCounts {
  backOffs = 0;
  resent = 0;

  add({ pushedBack }: BatchResult): void {
    this.backOffs += pushedBack?.backOffs ?? 0;
    this.resent += pushedBack?.resent ?? 0;
  }
}

interface ReconcilerStats extends WikiIndexStats {
  hook: HookStats;
  bulk: HookBulkStats;
  passes: number;
  lastPass: PassSummary | null;
  /** The change watch of each share, by share name (none when reconciler.watch is false). */
  watches: Record<string, ShareWatchStats>;
  pushBack: PushBackCounts;
}

/** One number of every share's change watch, by share. */
const perShare = (read: (w: ShareWatchStats) => number) => (s: ReconcilerStats): Record<string, number> =>
  Object.fromEntries(Object.entries(s.watches).map(([share, w]) => [share, read(w)]));

export const reconcilerMetrics: readonly StatMetric<ReconcilerStats>[] = [
  { name: 'fileproxy_index_queue_depth', help: 'Post-write hook changes waiting to be indexed', type: 'gauge', read: (s) => s.hook.queued },
  { name: 'fileproxy_index_queue_running', help: 'Post-write hook changes being read, rendered and indexed now', type: 'gauge', read: (s) => s.hook.running },
  {
    name: 'fileproxy_post_write_changes_total', help: 'Post-write hook messages by result (dropped: index not writable or queue full; the next pass repairs)',
    type: 'counter', label: 'result', read: (s) => ({ applied: s.hook.applied, unchanged: s.hook.unchanged, ignored: s.hook.ignored, failed: s.hook.failed, dropped: s.hook.dropped }),
  },
  {
    name: 'fileproxy_index_bulk_operations_total', help: 'Index operations of the post-write hook by result',
    type: 'counter', label: 'result', read: (s) => ({ upserted: s.bulk.upserted, deleted: s.bulk.deleted, failed: s.bulk.failed, dropped: s.bulk.dropped }),
  },
  {
    name: 'fileproxy_index_back_offs_total', help: 'Waits of the indexers before sending again what Elasticsearch pushed back (429: its write queue full)',
    type: 'counter', read: (s) => s.pushBack.backOffs,
  },
  { name: 'fileproxy_index_resent_operations_total', help: 'Index operations sent again after Elasticsearch pushed them back', type: 'counter', read: (s) => s.pushBack.resent },
  { name: 'fileproxy_index_status', help: 'State of the wiki index (1 for the current state)', type: 'gauge', label: 'status', read: (s) => ({ [s.status]: 1 }) },
  { name: 'fileproxy_reconciler_passes_total', help: 'Finished drift-repair passes', type: 'counter', read: (s) => s.passes },
  { name: 'fileproxy_reconciler_last_pass_start_seconds', help: 'Start of the last finished pass, Unix time (0: none yet)', type: 'gauge', read: (s) => (s.lastPass ? Date.parse(s.lastPass.startedAt) / 1000 : 0) },
  { name: 'fileproxy_reconciler_last_pass_duration_seconds', help: 'Duration of the last finished pass', type: 'gauge', read: (s) => (s.lastPass?.durationMs ?? 0) / 1000 },
  {
    name: 'fileproxy_reconciler_last_pass_pages', help: 'Pages of the last finished pass by result',
    type: 'gauge', label: 'result',
    read: ({ lastPass: p }): Record<string, number> =>
      (p ? { listed: p.listed, indexed: p.indexed, deleted: p.deleted, unreadable: p.unreadable, failed: p.failed, dropped: p.dropped } : {}),
  },
  { name: 'fileproxy_reconciler_last_pass_errors', help: 'Whole-share or index failures of the last finished pass', type: 'gauge', read: (s) => s.lastPass?.errors.length ?? 0 },
  { name: 'fileproxy_share_watch_armed', help: '1 when the file server holds the share\'s change watch (CHANGE_NOTIFY), else 0', type: 'gauge', label: 'share', read: perShare((w) => Number(w.armed)) },
  { name: 'fileproxy_share_watch_handles', help: 'Handles the share\'s change watch holds open on the file server (1, the share root, while armed)', type: 'gauge', label: 'share', read: perShare((w) => w.handles) },
  { name: 'fileproxy_share_watch_events_total', help: 'Changes the file server reported to the share\'s change watch', type: 'counter', label: 'share', read: perShare((w) => w.events) },
  {
    name: 'fileproxy_share_watch_overflows_total', help: 'Change watch answers that could not carry every change (STATUS_NOTIFY_ENUM_DIR); a pass of the share followed each',
    type: 'counter', label: 'share', read: perShare((w) => w.overflows),
  },
  {
    name: 'fileproxy_share_watch_rearms_total', help: 'Times a lost change watch was set up again (server restarted, connection dropped); a pass of the share followed each',
    type: 'counter', label: 'share', read: perShare((w) => w.rearms),
  },
];

