// What the http-front asks the ldap-resolver, declared once for both ends:
// who a wiki caller is (the SID sets and shares a search filters with) and the
// per-share wiki visibility that global admins manage; and the login throttle
// that every thread consults before a login asks the directory or an SMB server.
import type { LoginGuardProtocol, ThrottledAnswer } from '../auth/login-guard.js';

/**
 * A wiki request's identity as it arrived: basic credentials and the raw `X-Service-Groups` and
 * `X-Service-User` headers.
 */
export interface ViewerQuery {
  user: string;
  password: string;
  /** The header value; undefined when the request had none. */
  groupsHeader: string | undefined;
  /** The user a trusted caller calls on behalf of (src/wiki/service-user.ts); undefined when the request had none. */
  serviceUserHeader: string | undefined;
  /** The TCP peer address of the client (for the login throttle). */
  clientAddress: string;
}

/** Why a user named in `X-Service-User` sees nothing: the directory knows no such user, or would not let them log on. */
export type NoAccessReason = 'user_unknown' | 'user_disabled' | 'user_locked' | 'user_expired' | 'user_password_expired';

export type ViewerAnswer =
  | {
      ok: true;
      /** The authenticated user's SID; null when it could not be looked up (no `ldap.base_dn`). */
      userSid: string | null;
      /** What `acl_allow` is matched with: narrowed by the header; empty = the caller sees nothing. */
      allowSids: string[];
      /** What `acl_deny` is matched with: the user's whole token, whatever the header says. */
      denySids: string[];
      /** Configured shares whose wiki this caller may see (active, access groups met). */
      shares: string[];
      /** Set when the named user sees nothing because of their account (the sets are then empty). */
      noAccess?: NoAccessReason;
    }
  | { ok: false; status: 400 | 401 | 403 | 503; error: string; message: string }
  /** The login throttle refused to ask the directory. */
  | ThrottledAnswer;

/** The second permission stage of one share's wiki (spec §5): is it on, and for whom. */
export interface WikiVisibility {
  active: boolean;
  /** Directory group names; empty = every user. */
  access_groups: string[];
}

export interface ShareVisibility extends WikiVisibility {
  share: string;
}

export interface LdapResolverProtocol extends LoginGuardProtocol {
  viewer(query: ViewerQuery): Promise<ViewerAnswer>;
  /** Every configured share with its settings (defaults filled in), in config order. */
  listVisibility(): Promise<ShareVisibility[]>;
  /** Stores the settings durably; null when `share` is not a configured share. */
  setVisibility(share: string, settings: WikiVisibility): Promise<ShareVisibility | null>;
}
