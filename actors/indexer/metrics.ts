// The indexer pool's metrics. Its threads come and go (one ends after a quiet spell) and keep no registry: each
// batch's answer says how often Elasticsearch pushed it back (src/indexing/indexer/send-bulk.ts), and the
// reconciler, which owns the pool, adds those up here and serves them with its own metrics.
import type { BatchResult, PushBackCounts } from '../../src/indexing/operations.js';
import type { StatMetric } from '../../src/metrics/stat-metrics.js';

/** The back-offs of every batch the pool has answered. */
export class PushBackTotals implements PushBackCounts {
  backOffs = 0;
  resent = 0;

  add({ pushedBack }: BatchResult): void {
    this.backOffs += pushedBack?.backOffs ?? 0;
    this.resent += pushedBack?.resent ?? 0;
  }
}

export const indexerMetrics: readonly StatMetric<PushBackCounts>[] = [
  {
    name: 'fileproxy_index_back_offs_total', help: 'Waits of the indexers before sending again what Elasticsearch pushed back (429: its write queue full)',
    type: 'counter', read: (s) => s.backOffs,
  },
  { name: 'fileproxy_index_resent_operations_total', help: 'Index operations sent again after Elasticsearch pushed them back', type: 'counter', read: (s) => s.resent },
];
