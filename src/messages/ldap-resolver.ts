// What the http-front asks the ldap-resolver, declared once for both ends:
// who a wiki caller is (the SID sets and shares a search filters with) and the
// per-share wiki visibility that global admins manage; and the login throttle
// that every thread consults before a login asks the directory or an SMB server.
import type { LoginGuardProtocol } from '../auth/login-guard.js';
import type { ReusableViewerAnswer, ViewerQuery } from '../viewer/viewer.js';
import type { ShareVisibility, WikiVisibility } from '../viewer/visibility.js';

export interface LdapResolverProtocol extends LoginGuardProtocol {
  /** Who a wiki caller is, and until when a front may reuse the answer (src/viewer/viewer-cache.ts). */
  viewer(query: ViewerQuery): Promise<ReusableViewerAnswer>;
  /** The memory whose generation word grows with every change of the wiki visibility (VISIBILITY_GENERATION). */
  viewerEpoch(): Promise<SharedArrayBuffer>;
  /** Every configured share with its settings (defaults filled in), in config order. */
  listVisibility(): Promise<ShareVisibility[]>;
  /** Stores the settings durably; null when `share` is not a configured share. */
  setVisibility(share: string, settings: WikiVisibility): Promise<ShareVisibility | null>;
}
