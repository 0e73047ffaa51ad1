// An http-front thread's metrics beyond its request histograms (src/metrics/http-requests.ts).
import type { StatMetric } from '../../src/metrics/stat-metrics.js';

/** An http-front thread: its server's counts and its SMB pool (WebDAV sessions of the users). */
export const httpFrontMetrics: readonly StatMetric<{ inFlight: number; smbSessions: number }>[] = [
  { name: 'fileproxy_http_requests_in_flight', help: 'Requests being answered now', type: 'gauge', read: (s) => s.inFlight },
  {
    name: 'fileproxy_smb_sessions', help: 'Pooled SMB sessions (one per server and credentials) by pool',
    type: 'gauge', label: 'pool', read: (s) => ({ webdav: s.smbSessions }),
  },
];
