// The directory (LDAPS) as config.yml describes it, for the logins of the admin APIs.
import type { Config } from '../config/index.js';
import { createLdapClientFactory, LdapConfigError } from '../ldap/connection.js';
import { Directory } from '../ldap/directory.js';

/** Throws LdapConfigError naming the key when the `ldap` block cannot serve logins. */
export function directoryFromConfig(ldap: Config['ldap']): Directory {
  if (ldap.base_dn === undefined) {
    throw new LdapConfigError('ldap.base_dn is not set; logins need it to find users and their groups');
  }
  const connect = createLdapClientFactory({
    url: ldap.url,
    tls: { caFile: ldap.tls.ca_file, serverName: ldap.tls.server_name, rejectUnauthorized: ldap.tls.reject_unauthorized },
    timeoutMs: ldap.timeout,
  });
  return new Directory(connect, { baseDn: ldap.base_dn });
}
