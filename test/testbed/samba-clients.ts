// How Samba's own command-line clients (smbclient, smbcacls) log on to the testbed's file server: with NTLM, or in
// the NTLM-off mode with Kerberos only. Kerberos needs the server's name, not its address (the SPN is
// cifs/<name>), and edu.test is in no DNS: the clients ask the DC itself for its NetBIOS name DC1 (NBT on
// 127.0.0.1:137, `name resolve order = wins`), since smbcacls has no option to give the address as smbclient's -I
// does. The testbed's krb5.conf and a ticket cache in memory: never the machine's /etc/krb5.conf or resolver files,
// nor a cache file another process shares.
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
    service: `//${dcHostName.toUpperCase()}/${share}`,
    options: ['--option=name resolve order = wins', `--option=wins server = ${dcAddress}`, '--use-kerberos=required', `--realm=${realm}`],
    env: { ...process.env, KRB5_CONFIG: layout.krb5Config, KRB5CCNAME: 'MEMORY:testbed' },
  };
}

/** `-U` with the account in the testbed's domain and its password. */
export function sambaUserOption(account: { user: string; password: string }): string[] {
  return ['-U', `${netbiosDomain}\\${account.user}%${account.password}`];
}
