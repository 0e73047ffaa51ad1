// dav-state's metrics, read from what it reports in stats().
import type { StatMetric } from '../../src/metrics/stat-metrics.js';

export const davStateMetrics: readonly StatMetric<Record<string, number>>[] = [
  { name: 'fileproxy_dav_locks', help: 'Active WebDAV locks', type: 'gauge', read: (s) => s['locks'] ?? 0 },
  { name: 'fileproxy_dav_property_resources', help: 'Resources with dead WebDAV properties', type: 'gauge', read: (s) => s['propertyResources'] ?? 0 },
  { name: 'fileproxy_dav_property_bytes', help: 'Bytes of all dead WebDAV properties as stored (bounded by webdav.dead_properties.max_total_size)', type: 'gauge', read: (s) => s['propertyBytes'] ?? 0 },
  { name: 'fileproxy_dav_write_leases', help: 'Conditional WebDAV writes holding a lease now', type: 'gauge', read: (s) => s['leases'] ?? 0 },
];
