// The dedupe actor's metrics, read from what it reports in health().
import type { StatMetric } from '../../src/metrics/stat-metrics.js';

export const dedupeMetrics: readonly StatMetric<{ rememberedEventIds: number; capacity: number }>[] = [
  { name: 'fileproxy_webhook_dedupe_ring_size', help: 'Accepted webhook event ids the dedupe ring remembers', type: 'gauge', read: (s) => s.rememberedEventIds },
  { name: 'fileproxy_webhook_dedupe_ring_capacity', help: 'Event ids the dedupe ring can remember (webhooks.dedupe_size)', type: 'gauge', read: (s) => s.capacity },
];
