// What the http-front asks the ldap-resolver, declared once for both ends:
// who a wiki caller is (the SID sets and shares a search filters with) and the
// per-share wiki visibility that global admins manage; and the login throttle
// that every thread consults before a login asks the directory or an SMB server.
import type { LoginGuardProtocol } from '../auth/login-guard.js';
import type { ViewerAnswer, ViewerQuery } from '../wiki/viewer.js';
import type { ShareVisibility, WikiVisibility } from '../wiki/visibility.js';

export interface LdapResolverProtocol extends LoginGuardProtocol {
  viewer(query: ViewerQuery): Promise<ViewerAnswer>;
  /** Every configured share with its settings (defaults filled in), in config order. */
  listVisibility(): Promise<ShareVisibility[]>;
  /** Stores the settings durably; null when `share` is not a configured share. */
  setVisibility(share: string, settings: WikiVisibility): Promise<ShareVisibility | null>;
}
