// A validated service config for the Kerberos tests: the testbed's SMB server and indexer account, with the given
// smb.auth, kerberos section (null: none) and indexer keytab; and the testbed's directory.
import { configSchema, type Config } from '../../../src/config/schema.js';
import { createLdapClientFactory } from '../../../src/ldap/connection.js';
import { Directory } from '../../../src/ldap/directory.js';
import type { TestbedEnv } from '../../testbed/env.js';
import { kerberosConfig } from '../../testbed/kerberos.js';

export interface KerberosTestOptions {
  auth?: 'negotiate' | 'kerberos' | 'ntlm';
  kerberos?: object | null;
  keytab?: string;
}

export function kerberosTestConfig(env: TestbedEnv, { auth = 'negotiate', kerberos = kerberosConfig, keytab }: KerberosTestOptions = {}): Config {
  return configSchema.parse({
    smb: {
      server: env.smb.host,
      domain: env.smb.domain,
      shares: [{ name: 'schule' }],
      auth,
      indexer_service_account: { user: env.indexer.user, ...(keytab ? { keytab_file: keytab } : {}) },
    },
    ldap: { url: 'ldaps://127.0.0.1' },
    admin: { user: 'fpadmin', groups: ['Schul-Admins'] },
    ...(kerberos ? { kerberos } : {}),
  });
}

/** The testbed's directory over LDAPS, read with the indexer account (as the service and doctor read it). */
export function testbedDirectory(env: TestbedEnv): Directory {
  return new Directory(
    createLdapClientFactory({ url: env.ldap.url, tls: { caFile: env.ldap.ca_file, serverName: env.ldap.server_name }, timeoutMs: 5000 }),
    { baseDn: env.ldap.base_dn, domain: env.smb.domain, serviceAccount: { user: env.indexer.user, password: env.indexer.password } },
  );
}
