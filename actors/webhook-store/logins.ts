// Who may use the webhook APIs. Both authenticators live in the store actor,
// so that a login's session is valid on every HTTP thread; a login outside a
// session passes the login throttle (in the ldap-resolver) first.
import { AdminAuthenticator, AdminSessionCache, type AdminAuthResult } from '../../src/auth/admin.js';
import type { LoginGuard } from '../../src/auth/login-guard.js';
import type { Config } from '../../src/config/index.js';
import { directoryFromConfig, loginDomain } from '../../src/ldap/from-config.js';
import { namesAccount } from '../../src/ldap/login-name.js';

interface WebhookLogins {
  /** The admin API: global admins only (members of `admin.groups`). */
  admin(authorization: string | undefined, clientAddress: string): Promise<AdminAuthResult>;
  /**
   * `GET /edu-api/users/{username}/events`: the caller's basic credentials. Global admins, the
   * service account `admin.user` and the indexer service account (`smb.indexer_service_account.user`)
   * read every user's events; any other user only their own (`username` naming their account in
   * any of its forms, see `namesAccount`), else 403.
   */
  eventReader(authorization: string | undefined, username: string, clientAddress: string): Promise<AdminAuthResult>;
}

/**
 * When the `ldap` block cannot serve logins (no base_dn, ldap:// URL, unreadable CA file), the
 * service still runs (the webhook intake needs no directory) and every login gets 503 naming
 * the config problem, which is also logged once at start.
 */
export function createWebhookLogins(config: Config, guard: LoginGuard, onConfigProblem: (message: string) => void): WebhookLogins {
  let directory;
  try {
    directory = directoryFromConfig(config, undefined);
  } catch (err) {
    const message = `logins to the webhook APIs are impossible: ${(err as Error).message}`;
    onConfigProblem(message);
    const refuse = async (): Promise<AdminAuthResult> => ({ ok: false, status: 503, error: 'directory_unavailable', message });
    return { admin: refuse, eventReader: refuse };
  }
  const sessions = () => new AdminSessionCache({ ttlMs: config.admin.session_ttl });
  const admins = new AdminAuthenticator(directory, { groups: config.admin.groups }, sessions(), guard);
  const readers = new AdminAuthenticator(
    directory,
    { groups: config.admin.groups, accounts: [config.admin.user, config.smb.indexer_service_account.user] },
    sessions(),
    guard,
  );
  const domain = loginDomain(config);
  return {
    admin: (authorization, clientAddress) => admins.authenticateHeader(authorization, clientAddress),
    eventReader: async (authorization, username, clientAddress) => {
      const result = await readers.authenticateHeader(authorization, clientAddress, (account) => namesAccount(username, account, domain));
      return result.ok || result.error !== 'forbidden' ? result : { ...result, message: `${result.message}; a user may read only their own events` };
    },
  };
}
