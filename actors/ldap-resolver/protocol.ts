// What the http-front asks the ldap-resolver, declared once for both ends:
// who a wiki caller is (the SID sets and shares a search filters with) and the
// per-share wiki visibility that global admins manage; and the login throttle
// that every thread consults before a login asks the directory or an SMB server; and the account a pooled SMB
// session belongs to, asked afresh each time (src/logon/account-sessions.ts).
import type { LoginGuardProtocol } from '../../src/auth/login-guard.js';
import type { LogonAccountSource } from '../../src/ldap/directory.js';
import type { ViewerSource } from '../../src/viewer/resolver-answers.js';
import type { ShareVisibility, WikiVisibility } from '../../src/viewer/visibility.js';

/**
 * The login throttle (src/auth/login-guard.ts), who a wiki caller is (src/viewer/resolver-answers.ts), the account
 * a logon reaches (src/ldap/directory.ts), each declared by the feature that asks; and the wiki visibility, which
 * the admin routes of the fronts read and set.
 */
export interface LdapResolverProtocol extends LoginGuardProtocol, ViewerSource, LogonAccountSource {
  /** Every configured share with its settings (defaults filled in), in config order. */
  listVisibility(): Promise<ShareVisibility[]>;
  /** Stores the settings durably; null when `share` is not a configured share. */
  setVisibility(share: string, settings: WikiVisibility): Promise<ShareVisibility | null>;
}
