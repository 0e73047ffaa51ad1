// What the http-front asks the ldap-resolver, declared once for both ends:
// who a wiki caller is (the SID sets and shares a search filters with) and the
// per-share wiki visibility that global admins manage; and the login throttle
// that every thread consults before a login asks the directory or an SMB server; and the account a pooled SMB
// session belongs to, asked afresh each time (src/logon/account-sessions.ts).
import type { LoginGuardProtocol } from '../../src/auth/login-guard.js';
import type { LogonAccount, LogonAccountQuery } from '../../src/ldap/directory.js';
import type { ReusableViewerAnswer, ViewerQuery } from '../../src/viewer/viewer.js';
import type { ShareVisibility, WikiVisibility } from '../../src/viewer/visibility.js';

export interface LdapResolverProtocol extends LoginGuardProtocol {
  /** Who a wiki caller is, and until when a front may reuse the answer (src/viewer/viewer-cache.ts). */
  viewer(query: ViewerQuery): Promise<ReusableViewerAnswer>;
  /** The memory whose generation word grows with every change of the wiki visibility (VISIBILITY_GENERATION). */
  viewerEpoch(): Promise<SharedArrayBuffer>;
  /**
   * The account a logon with this login name reaches, or the account with this SID, and whether it may log on;
   * `account: null` when there is none, `unavailable` (why) when the directory cannot answer, `unconfigured` (why)
   * when the service has no directory to ask (no `ldap.base_dn` or no indexer password). Never cached.
   */
  logonAccount(query: LogonAccountQuery): Promise<{ account: LogonAccount | null } | { unavailable: string } | { unconfigured: string }>;
  /** Every configured share with its settings (defaults filled in), in config order. */
  listVisibility(): Promise<ShareVisibility[]>;
  /** Stores the settings durably; null when `share` is not a configured share. */
  setVisibility(share: string, settings: WikiVisibility): Promise<ShareVisibility | null>;
}
