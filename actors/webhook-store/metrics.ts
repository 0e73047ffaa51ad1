// The webhook-store's metrics, read from what it reports in health().
import type { StatMetric } from '../../src/metrics/stat-metrics.js';

export const webhookStoreMetrics: readonly StatMetric<{ webhookClients: number; cachedUserEvents: number; cachedUserEventBytes: number }>[] = [
  { name: 'fileproxy_webhook_clients', help: 'Registered webhook clients', type: 'gauge', read: (s) => s.webhookClients },
  { name: 'fileproxy_user_events_cached', help: 'Cached service-eventhandler events of all users', type: 'gauge', read: (s) => s.cachedUserEvents },
  { name: 'fileproxy_user_events_cached_bytes', help: 'Size of the cached service-eventhandler events as JSON (webhooks.user_events.max_bytes bounds it)', type: 'gauge', read: (s) => s.cachedUserEventBytes },
];
