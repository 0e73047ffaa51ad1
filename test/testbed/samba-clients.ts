// How Samba's own command-line clients (smbclient, smbcacls) log on to the testbed's file server: with NTLM, or in
// the NTLM-off mode with Kerberos only, by the DC's name (the file server's SPN is cifs/<that name>) at its loopback
// address, with the testbed's krb5.conf and a ticket cache in memory: never the machine's /etc/krb5.conf nor a
// cache file another process shares.
import { dcAddress, dcHostName, netbiosDomain, realm } from './domain.js';
import { layout } from './layout.js';
import type { NtlmMode } from './ntlm-mode.js';

export interface SambaClientLogon {
  /** The share's UNC name, the first argument of smbclient and smbcacls. */
  service: string;
  /** Where to connect and how to authenticate; the caller adds the credentials (`-U` or `-A`). */
  options: string[];
  /** The environment to run the client in. */
  env: NodeJS.ProcessEnv;
}

/** The share's name and options for a Samba client in the testbed's NTLM mode. */
export function sambaClientLogon(ntlm: NtlmMode, share: string): SambaClientLogon {
  if (ntlm === 'on') return { service: `//${dcAddress}/${share}`, options: [], env: process.env };
  return {
    service: `//${dcHostName.toUpperCase()}.${realm.toLowerCase()}/${share}`,
    options: ['-I', dcAddress, '--use-kerberos=required', `--realm=${realm}`],
    env: { ...process.env, KRB5_CONFIG: layout.krb5Config, KRB5CCNAME: 'MEMORY:testbed' },
  };
}

/** `-U` with the account in the testbed's domain and its password. */
export function sambaUserOption(account: { user: string; password: string }): string[] {
  return ['-U', `${netbiosDomain}\\${account.user}%${account.password}`];
}
