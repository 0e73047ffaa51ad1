// The ldap-resolver's metrics, read from what it reports in health().
import type { LoginAccountsStats } from '../../src/auth/login-accounts.js';
import type { LoginThrottleStats } from '../../src/auth/login-throttle.js';
import type { StatMetric } from '../../src/metrics/stat-metrics.js';
import type { ViewerStats } from '../../src/viewer/viewer.js';

export const ldapResolverMetrics: readonly StatMetric<ViewerStats & { resolvesViewers: boolean; serviceConnectionsOpened: number } & LoginThrottleStats & LoginAccountsStats>[] = [
  {
    name: 'fileproxy_logins_throttled_total', help: 'Logins (wiki, WebDAV, admin APIs) refused with 429 by the login throttle before the directory or SMB server was asked',
    type: 'counter', read: (s) => s.throttledLogins,
  },
  {
    name: 'fileproxy_login_lockouts', help: 'Accounts and client addresses the login throttle holds locked now',
    type: 'gauge', label: 'scope', read: (s) => ({ account: s.lockedAccounts, address: s.lockedAddresses }),
  },
  {
    name: 'fileproxy_login_account_lookups_total', help: 'Directory searches for the account holding a login\'s principal name (user@suffix), whose failure budget the login spends; failed: the directory did not answer and the name\'s user part was counted',
    type: 'counter', label: 'result', read: (s) => ({ answered: s.loginAccountLookups - s.loginAccountLookupFailures, failed: s.loginAccountLookupFailures }),
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
