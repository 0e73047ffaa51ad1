// An http-front thread's metrics beyond its request histograms (request-metrics.ts).
import type { StatMetric } from '../../src/metrics/stat-metrics.js';
import type { RefusedClaims } from '../../src/smb/index.js';

/** An http-front thread: its server's counts and its SMB pool (WebDAV sessions of the users, and those refused). */
export const httpFrontMetrics: readonly StatMetric<{ inFlight: number; smbSessions: number; smbSessionsRefused: RefusedClaims }>[] = [
  { name: 'fileproxy_http_requests_in_flight', help: 'Requests being answered now', type: 'gauge', read: (s) => s.inFlight },
  {
    name: 'fileproxy_smb_sessions', help: 'Pooled SMB sessions (one per server and credentials) by pool',
    type: 'gauge', label: 'pool', read: (s) => ({ webdav: s.smbSessions }),
  },
  {
    name: 'fileproxy_smb_sessions_refused_total',
    help: 'New WebDAV SMB sessions refused with 503 by bound: one account\'s connections (smb.max_connections_per_account) or all (smb.max_connections)',
    type: 'counter', label: 'bound', read: (s) => ({ ...s.smbSessionsRefused }),
  },
];
