// The one way tests log on to the testbed's file server themselves (fixtures written as a user, the file server's
// side of the oracles, smbclient and smbcacls): in the testbed's NTLM mode. The project's client gets its
// credentials from the service's own SmbLogons, built from the testbed's config.yml, which in the NTLM-off mode
// (`up --ntlm=off`) says smb.auth kerberos: so a test's sessions are made exactly as a service's would be. Samba's
// clients get their options from test/testbed/samba-clients.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/index.js';
import { SmbLogons } from '../../src/logon/smb-logons.js';
import type { Credentials, SmbClient, SmbShare } from '../../src/smb/index.js';
import type { NtlmMode } from '../testbed/ntlm-mode.js';
import { sambaClientLogon, sambaUserOption } from '../testbed/samba-clients.js';

/** What of the testbed's env.json a logon needs (test/integration/smb/testbed.ts reads its own, narrower copy). */
export interface SmbTestbed {
  config: string;
  smb: { host: string; port: number; domain: string; ntlm?: NtlmMode };
}

export interface Account {
  user: string;
  password: string;
}

/** Per config file: the Kerberos clients (and their tickets) live as long as the test process. */
const logonsByConfig = new Map<string, SmbLogons>();

function logonsOf(env: SmbTestbed): SmbLogons {
  let logons = logonsByConfig.get(env.config);
  if (!logons) {
    logons = new SmbLogons(loadConfig(env.config).config);
    logonsByConfig.set(env.config, logons);
  }
  return logons;
}

/** `account`'s credentials for the testbed's file server: NTLM, or Kerberos alone in the NTLM-off mode. */
export function testbedCredentials(env: SmbTestbed, account: Account): Credentials {
  return logonsOf(env).user(env.smb.host, env.smb.domain, account.user, account.password);
}

/** `share` on the testbed's file server as `account`, through `client`'s pool. */
export function testbedShare(client: SmbClient, env: SmbTestbed, account: Account, share: string): SmbShare {
  return client.share({ host: env.smb.host, port: env.smb.port, ...testbedCredentials(env, account), share });
}

/**
 * The arguments and environment of smbclient or smbcacls on `share` as `account` in the testbed's NTLM mode:
 * the share's UNC name first, then `args`, then the logon options.
 */
export function sambaClientAs(env: SmbTestbed, share: string, account: Account, args: readonly string[]): { args: string[]; env: NodeJS.ProcessEnv } {
  const logon = sambaClientLogon(env.smb.ntlm ?? 'on', share);
  return { args: [logon.service, ...args, ...logon.options, ...sambaUserOption(account)], env: logon.env };
}

/** Runs smbclient or smbcacls as sambaClientAs says; rejects as execFile does (with stdout and stderr). */
export function runSambaClient(
  tool: 'smbclient' | 'smbcacls', env: SmbTestbed, share: string, account: Account, args: readonly string[],
): Promise<{ stdout: string; stderr: string }> {
  const command = sambaClientAs(env, share, account, args);
  return promisify(execFile)(tool, command.args, { env: command.env });
}

/** For `{ skip }` of a test about NTLM itself: the reason, printed in the NTLM-off mode; false otherwise. */
export function skipWithoutNtlm(env: SmbTestbed): string | false {
  return env.smb.ntlm === 'off' ? 'the testbed refuses NTLM (up --ntlm=off) and this test is about NTLM itself' : false;
}

/**
 * smb.auth for a service whose config adds a kerberos section (delegation) while the users' own logons must stay
 * what the testbed's mode makes them: NTLM, or Kerberos when the testbed refuses NTLM (`negotiate` would otherwise
 * switch them to Kerberos, and `ntlm` would leave the service without a logon in the NTLM-off mode).
 */
export function ownLogonAuth(env: SmbTestbed): 'ntlm' | 'kerberos' {
  return env.smb.ntlm === 'off' ? 'kerberos' : 'ntlm';
}
