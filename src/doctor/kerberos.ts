// The Kerberos checks of `fileproxy doctor`: the indexer's keytab, a TGT from the configured KDCs (which also
// shows clock skew, in seconds), and a ticket for the SPN of every file server; each failure with its fix in
// samba-tool and in Windows terms.
import { readIndexerKeytab, type Config } from '../config/index.js';
import { KerberosClient } from '../kerberos/client.js';
import { KerberosError } from '../kerberos/errors.js';
import { KdcErrorCode } from '../kerberos/messages.js';
import { SmbLogons } from '../logon/smb-logons.js';
import { fail, ok, skip, type CheckResult } from './check.js';

const NTP_FIX = 'synchronise the clocks of this host and the domain controllers (NTP: chrony or systemd-timesyncd pointing at the DCs)';

export async function checkKerberos(config: Config, password: string | undefined): Promise<CheckResult[]> {
  const { kerberos, smb } = config;
  if (!kerberos) return [skip('Kerberos', `no kerberos section: SMB logons use NTLM (smb.auth ${smb.auth})`)];
  if (smb.auth === 'ntlm') return [skip('Kerberos', 'smb.auth is ntlm: the kerberos section is not used')];
  const user = smb.indexer_service_account.user;
  const hosts = [...new Set(smb.shares.map((share) => share.server ?? smb.server!))];
  let keytab: Buffer | undefined;
  try {
    keytab = readIndexerKeytab(config);
  } catch (err) {
    return [fail('Kerberos keytab', (err as Error).message, `samba-tool domain exportkeytab ${smb.indexer_service_account.keytab_file} --principal=${user}@${kerberos.realm} (Windows: ktpass /princ ${user}@${kerberos.realm} /mapuser ${smb.domain}\\${user} /crypto AES256-SHA1 /ptype KRB5_NT_PRINCIPAL /pass * /out <file>), then chmod 600`)];
  }
  const logons = new SmbLogons(config);
  const results: CheckResult[] = [];
  let client: KerberosClient;
  try {
    const source = logons.indexer(hosts[0]!, { ...(password === undefined ? {} : { indexerPassword: password }), ...(keytab ? { indexerKeytab: keytab } : {}) }).kerberos!.client;
    // The indexer's own tickets, never a delegated source.
    if (!(source instanceof KerberosClient)) throw new Error('the indexer logon has no Kerberos client of its own');
    client = source;
  } catch (err) {
    return [fail('Kerberos keytab', (err as Error).message, `export the keys of ${user} into ${smb.indexer_service_account.keytab_file} with samba-tool domain exportkeytab (Windows: ktpass)`)];
  }
  const proof = keytab ? 'keytab' : 'password';
  try {
    await client.ticketGrantingTicket();
    results.push(ok('Kerberos KDC', `a TGT for ${user}@${kerberos.realm} with its ${proof} from ${kerberos.kdcs.join(', ')}`));
  } catch (err) {
    const e = err as KerberosError;
    const fix =
      e.code === 'CLOCK_SKEW' ? NTP_FIX
      : e.code === 'KDC_UNREACHABLE' ? 'check kerberos.kdcs: each must be a domain controller answering on TCP port 88'
      : e.kdcError === KdcErrorCode.PREAUTH_FAILED && keytab ? `the keytab does not hold the account's current keys (the password changed since): export it again`
      : `check the account ${user} in the directory (samba-tool user show ${user}; Windows: Active Directory Users and Computers)`;
    return [fail('Kerberos KDC', e.message, fix)];
  }
  for (const host of hosts) {
    const spn = logons.spnFor(host);
    try {
      await client.serviceTicket(spn);
      results.push(ok(`Kerberos SPN ${spn}`, `a ticket for the file server at ${host}`));
    } catch (err) {
      results.push(
        fail(
          `Kerberos SPN ${spn}`,
          (err as Error).message,
          `set kerberos.spns["${host}"] to the server's SPN, or add it to the server's computer account: samba-tool spn add ${spn} <SERVER>$ (Windows: setspn -S ${spn} <SERVER>)`,
        ),
      );
    }
  }
  return results;
}
