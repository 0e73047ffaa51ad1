// The metrics of each actor, read from what the actor reports in health().
// Every actor thread registers its list in a registry of its own (see
// snapshot.ts for how the supervisor collects and merges them).
import type { LoginThrottleStats } from '../auth/login-throttle.js';
import type { HookBulkStats, HookStats } from '../indexing/reconciler/page-changes.js';
import type { ShareWatchStats } from '../indexing/reconciler/share-watch.js';
import type { WikiIndexStats } from '../indexing/reconciler/wiki-index.js';
import type { ViewerStats } from '../wiki/viewer.js';
import type { StatMetric } from './stat-metrics.js';

export const dedupeMetrics: readonly StatMetric<{ rememberedEventIds: number; capacity: number }>[] = [
  { name: 'fileproxy_webhook_dedupe_ring_size', help: 'Accepted webhook event ids the dedupe ring remembers', type: 'gauge', read: (s) => s.rememberedEventIds },
  { name: 'fileproxy_webhook_dedupe_ring_capacity', help: 'Event ids the dedupe ring can remember (webhooks.dedupe_size)', type: 'gauge', read: (s) => s.capacity },
];

export const webhookStoreMetrics: readonly StatMetric<{ webhookClients: number; cachedUserEvents: number; cachedUserEventBytes: number }>[] = [
  { name: 'fileproxy_webhook_clients', help: 'Registered webhook clients', type: 'gauge', read: (s) => s.webhookClients },
  { name: 'fileproxy_user_events_cached', help: 'Cached service-eventhandler events of all users', type: 'gauge', read: (s) => s.cachedUserEvents },
  { name: 'fileproxy_user_events_cached_bytes', help: 'Size of the cached service-eventhandler events as JSON (webhooks.user_events.max_bytes bounds it)', type: 'gauge', read: (s) => s.cachedUserEventBytes },
];

export const ldapResolverMetrics: readonly StatMetric<ViewerStats & { resolvesViewers: boolean; serviceConnectionsOpened: number } & LoginThrottleStats>[] = [
  {
    name: 'fileproxy_logins_throttled_total', help: 'Logins (wiki, WebDAV, admin APIs) refused with 429 by the login throttle before the directory or SMB server was asked',
    type: 'counter', read: (s) => s.throttledLogins,
  },
  {
    name: 'fileproxy_login_lockouts', help: 'Accounts and client addresses the login throttle holds locked now',
    type: 'gauge', label: 'scope', read: (s) => ({ account: s.lockedAccounts, address: s.lockedAddresses }),
  },
  {
    name: 'fileproxy_wiki_logins_total', help: 'Wiki caller logins by result: verified by an LDAPS bind, served from the login cache, rejected, or by a Kerberos ticket (HTTP Negotiate, the account read from the directory)',
    type: 'counter', label: 'result', read: (s) => ({ verified: s.logins, cached: s.cachedLogins, rejected: s.rejectedLogins, negotiated: s.negotiatedCalls }),
  },
  {
    name: 'fileproxy_wiki_on_behalf_calls_total', help: 'Wiki and WebDAV calls with X-Service-User: from a trusted caller (accepted), or refused with 403 (untrusted)',
    type: 'counter', label: 'result', read: (s) => ({ accepted: s.onBehalfCalls, untrusted: s.untrustedOnBehalfCalls }),
  },
  {
    name: 'fileproxy_wiki_service_user_refusals_total', help: 'Wiki and WebDAV calls of trusted callers refused with 403 because X-Service-User named an account they may not call on behalf of, by rule',
    type: 'counter', label: 'rule', read: (s) => ({ ...s.serviceUserRefusals }),
  },
  {
    name: 'fileproxy_ldap_service_connections_opened_total', help: 'LDAPS connections the ldap-resolver opened (and bound) as the indexer account for user and group lookups; at most DEFAULT_SERVICE_CONNECTIONS (src/ldap/directory.ts, 2) are open at once',
    type: 'counter', read: (s) => s.serviceConnectionsOpened,
  },
  { name: 'fileproxy_directory_errors_total', help: 'Directory (LDAP) calls of the ldap-resolver that failed because the directory was unavailable', type: 'counter', read: (s) => s.directoryErrors },
  { name: 'fileproxy_wiki_directory_configured', help: '1 when wiki callers can be resolved (ldap.base_dn and the indexer account are set), else 0', type: 'gauge', read: (s) => Number(s.resolvesViewers) },
];

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

export interface ReconcilerStats extends WikiIndexStats {
  hook: HookStats;
  bulk: HookBulkStats;
  passes: number;
  lastPass: PassSummary | null;
  /** The change watch of each share, by share name (none when reconciler.watch is false). */
  watches: Record<string, ShareWatchStats>;
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

export const davStateMetrics: readonly StatMetric<Record<string, number>>[] = [
  { name: 'fileproxy_dav_locks', help: 'Active WebDAV locks', type: 'gauge', read: (s) => s['locks'] ?? 0 },
  { name: 'fileproxy_dav_property_resources', help: 'Resources with dead WebDAV properties', type: 'gauge', read: (s) => s['propertyResources'] ?? 0 },
  { name: 'fileproxy_dav_property_bytes', help: 'Bytes of all dead WebDAV properties as stored (bounded by webdav.dead_properties.max_total_size)', type: 'gauge', read: (s) => s['propertyBytes'] ?? 0 },
  { name: 'fileproxy_dav_write_leases', help: 'Conditional WebDAV writes holding a lease now', type: 'gauge', read: (s) => s['leases'] ?? 0 },
];

/** An http-front thread: its server's counts and its SMB pool (WebDAV sessions of the users). */
export const httpFrontMetrics: readonly StatMetric<{ inFlight: number; smbSessions: number }>[] = [
  { name: 'fileproxy_http_requests_in_flight', help: 'Requests being answered now', type: 'gauge', read: (s) => s.inFlight },
  {
    name: 'fileproxy_smb_sessions', help: 'Pooled SMB sessions (one per server and credentials) by pool',
    type: 'gauge', label: 'pool', read: (s) => ({ webdav: s.smbSessions }),
  },
];
