// The one place that turns config.yml's `ldap` block into a Directory and its connections, so every thread (and
// the readiness probe) that talks to the directory configures it the same way.
import type { Config } from '../config/index.js';
import { createLdapClientFactory, LdapConfigError, type LdapClientFactory } from './connection.js';
import { Directory } from './directory.js';
import { type LoginDomain, realmFromBaseDn } from './login-name.js';

/**
 * The directory of `config`. `indexerPassword` enables group lookups with the
 * indexer service account; `timeoutMs` as for ldapClientsFromConfig. Throws LdapConfigError naming the key when the
 * block cannot serve (no `ldap.base_dn`, an ldap:// URL, an unreadable CA file).
 */
export function directoryFromConfig(config: Config, indexerPassword: string | undefined, timeoutMs = config.ldap.timeout): Directory {
  const { ldap } = config;
  if (ldap.base_dn === undefined) {
    throw new LdapConfigError('ldap.base_dn is not set; users and their groups cannot be looked up');
  }
  const account = config.smb.indexer_service_account;
  return new Directory(ldapClientsFromConfig(ldap, timeoutMs), {
    baseDn: ldap.base_dn,
    domain: config.smb.domain,
    serviceAccount: indexerPassword === undefined ? undefined : { user: account.user, password: indexerPassword },
  });
}

/**
 * Connections to the directory of config.yml's `ldap` block; `timeoutMs` shorter than ldap.timeout for a caller
 * that answers someone waiting (a readiness probe).
 */
function ldapClientsFromConfig(ldap: Config['ldap'], timeoutMs = ldap.timeout): LdapClientFactory {
  return createLdapClientFactory({
    url: ldap.url,
    tls: { caFile: ldap.tls.ca_file, serverName: ldap.tls.server_name, rejectUnauthorized: ldap.tls.reject_unauthorized },
    timeoutMs,
  });
}

/** The names login names of this service's domain are read with (the realm is empty without `ldap.base_dn`). */
export function loginDomain(config: Config): LoginDomain {
  return { realm: realmFromBaseDn(config.ldap.base_dn ?? '') ?? '', domain: config.smb.domain };
}
