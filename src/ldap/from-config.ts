// The one place that turns config.yml's `ldap` block into a Directory, so
// every thread that talks to the directory configures it the same way.
import type { Config } from '../config/index.js';
import { createLdapClientFactory } from './connection.js';
import { Directory } from './directory.js';

/**
 * The directory of `config`, or undefined without `ldap.base_dn` (then no
 * user or group can be looked up, and callers fail closed).
 * `indexerPassword` enables group lookups with the service account.
 */
export function directoryFromConfig(config: Config, indexerPassword: string | undefined): Directory | undefined {
  const { ldap } = config;
  if (ldap.base_dn === undefined) return undefined;
  const connect = createLdapClientFactory({
    url: ldap.url,
    tls: { caFile: ldap.tls.ca_file, serverName: ldap.tls.server_name, rejectUnauthorized: ldap.tls.reject_unauthorized },
    timeoutMs: ldap.timeout,
  });
  const account = config.smb.indexer_service_account;
  return new Directory(connect, {
    baseDn: ldap.base_dn,
    serviceAccount: indexerPassword === undefined ? undefined : { user: account.user, password: indexerPassword },
  });
}
