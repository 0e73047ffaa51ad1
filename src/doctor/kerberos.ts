// The Kerberos checks of `fileproxy doctor`: where the KDCs are (the config or DNS SRV records), the indexer's keytab
// (readable, and its key version the directory's), a TGT from a KDC with the clock skew in seconds, a ticket for the
// SPN of every file server, and the delegation account of kerberos.delegation as the config expects it (its keytab,
// a forwardable TGT, protocol transition, each file server's cifs/ SPN in msDS-AllowedToDelegateTo, its HTTP SPN).
// Each failure names its fix in samba-tool and in Windows terms (setspn, ktpass, the account's Delegation tab).
import { readDelegationKeytab, readIndexerKeytab, type Config } from '../config/index.js';
import { KerberosClient, locateKdcs } from '../kerberos/client.js';
import { KerberosError } from '../kerberos/errors.js';
import { keysFor, parseKeytab } from '../kerberos/keytab.js';
import { KdcErrorCode, KdcOption } from '../kerberos/messages.js';
import type { Directory, KerberosAccount } from '../ldap/directory.js';
import { SmbLogons, kerberosSettings } from '../logon/smb-logons.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';

const NTP_FIX = 'synchronise the clocks of this host and the domain controllers (NTP: chrony or systemd-timesyncd pointing at the DCs)';
/** Beyond this the clocks are still within the KDC's limit (5 minutes by default) but drifting apart. */
const SKEW_WARNING_SECONDS = 60;

type Kerberos = NonNullable<Config['kerberos']>;

/** The keytab's newest key version for `principal`, for comparing with the directory's msDS-KeyVersionNumber. */
function keytabVersion(keytab: Buffer, principal: string, realm: string): number | undefined {
  const versions = parseKeytab(keytab)
    .filter((e) => e.realm.toUpperCase() === realm.toUpperCase() && e.names.join('/').toLowerCase() === principal.toLowerCase())
    .map((e) => e.kvno);
  return versions.length > 0 ? Math.max(...versions) : undefined;
}

/** Why a keytab's keys are not the account's current ones, when the directory says which version those are. */
function versionMismatch(keytab: Buffer, principal: string, realm: string, entry: KerberosAccount | null): string | undefined {
  const inKeytab = keytabVersion(keytab, principal, realm);
  if (entry?.keyVersion === undefined || inKeytab === undefined || inKeytab === entry.keyVersion) return undefined;
  return `the keytab holds key version ${inKeytab} of ${principal}, the directory's current one is ${entry.keyVersion} (msDS-KeyVersionNumber): the password changed since the export`;
}

const exportFix = (kerberos: Kerberos, account: string, file: string, domain: string, extraPrincipal?: string): string =>
  `samba-tool domain exportkeytab ${file} --principal=${account}@${kerberos.realm}${extraPrincipal ? ` (and --principal=${extraPrincipal})` : ''} ` +
  `(Windows: ktpass /princ ${account}@${kerberos.realm} /mapuser ${domain}\\${account} /crypto AES256-SHA1 /ptype KRB5_NT_PRINCIPAL /pass * /out <file>), then chmod 600 ${file}`;

/** The clock skew the KDC's answer shows: its authtime against this host's clock when the answer arrived. */
function clockCheck(authtime: Date, receivedAt: number): CheckResult {
  const seconds = Math.round((authtime.getTime() - receivedAt) / 1000);
  const detail = `the KDC's clock is ${Math.abs(seconds)} s ${seconds >= 0 ? 'ahead of' : 'behind'} this host's (the KDC allows 300 s by default)`;
  return Math.abs(seconds) > SKEW_WARNING_SECONDS ? warn('Kerberos clock', detail, NTP_FIX) : ok('Kerberos clock', detail);
}

/** A KDC refusal of a logon with a password or keytab, as a doctor result with its fix. */
function logonFailure(name: string, e: KerberosError, account: string, keytabProblem: string | undefined): CheckResult[] {
  if (e.code === 'CLOCK_SKEW') return [fail('Kerberos clock', e.message, NTP_FIX)];
  const fix =
    e.code === 'KDC_UNREACHABLE' ? 'check kerberos.kdcs (or, without it, the realm\'s SRV records in DNS): each KDC must be a domain controller answering on TCP port 88'
    : e.kdcError === KdcErrorCode.PREAUTH_FAILED && keytabProblem ? `${keytabProblem}: export the keytab again`
    : e.kdcError === KdcErrorCode.PREAUTH_FAILED ? 'the keytab (or password file) does not hold the account\'s current keys (the password changed since): export it again'
    : `check the account ${account} in the directory (samba-tool user show ${account}; Windows: Active Directory Users and Computers)`;
  return [fail(name, e.message, fix)];
}

export async function checkKerberos(config: Config, password: string | undefined, directory?: Directory): Promise<CheckResult[]> {
  const { kerberos, smb } = config;
  if (!kerberos) return [skip('Kerberos', `no kerberos section: SMB logons use NTLM (smb.auth ${smb.auth})`)];
  if (smb.auth === 'ntlm') return [skip('Kerberos', 'smb.auth is ntlm: the kerberos section is not used')];
  const settings = kerberosSettings(kerberos);
  const results: CheckResult[] = [];
  let located: string;
  try {
    located = (await locateKdcs(settings)).map((k) => `${k.host}:${k.port}`).join(', ');
  } catch (err) {
    const realm = kerberos.realm.toLowerCase();
    return [fail('Kerberos KDC location', (err as Error).message,
      `list the domain controllers in kerberos.kdcs, or point kerberos.dns_servers at the domain's DNS; a DC registers _kerberos._tcp.${realm} itself ` +
      `(Samba: samba_dnsupdate, check with samba-tool dns query <DC> ${realm} _kerberos._tcp SRV; Windows: the Netlogon service, nltest /dsregdns)`)];
  }
  if (!kerberos.kdcs) results.push(ok('Kerberos KDC location', `DNS SRV records name ${located} for ${kerberos.realm}`));

  const user = smb.indexer_service_account.user;
  const hosts = [...new Set(smb.shares.map((share) => share.server ?? smb.server!))];
  let keytab: Buffer | undefined;
  try {
    keytab = readIndexerKeytab(config);
  } catch (err) {
    return [...results, fail('Kerberos keytab', (err as Error).message, exportFix(kerberos, user, smb.indexer_service_account.keytab_file!, smb.domain))];
  }
  const logons = new SmbLogons(config);
  let client: KerberosClient;
  try {
    const source = logons.indexer(hosts[0]!, { ...(password === undefined ? {} : { indexerPassword: password }), ...(keytab ? { indexerKeytab: keytab } : {}) }).kerberos!.client;
    // The indexer's own tickets, never a delegated source.
    if (!(source instanceof KerberosClient)) throw new Error('the indexer logon has no Kerberos client of its own');
    client = source;
  } catch (err) {
    return [...results, fail('Kerberos keytab', (err as Error).message, `export the keys of ${user} into ${smb.indexer_service_account.keytab_file} with samba-tool domain exportkeytab (Windows: ktpass)`)];
  }
  const proof = keytab ? 'keytab' : 'password';
  const indexerEntry = keytab && directory ? await directory.kerberosAccount(user).catch(() => null) : null;
  try {
    const tgt = await client.ticketGrantingTicket();
    const receivedAt = Date.now();
    results.push(ok('Kerberos KDC', `a TGT for ${user}@${kerberos.realm} with its ${proof} from ${located}`), clockCheck(tgt.authtime, receivedAt));
  } catch (err) {
    return [...results, ...logonFailure('Kerberos KDC', err as KerberosError, user, keytab && versionMismatch(keytab, user, kerberos.realm, indexerEntry))];
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
  if (kerberos.delegation) results.push(...(await checkDelegation(config, kerberos, hosts.map((host) => logons.spnFor(host)), directory)));
  return results;
}

/**
 * kerberos.delegation as the config expects it: the keytab holds the account's current keys, its TGT is forwardable
 * (S4U2Proxy needs that), and the directory gives it protocol transition, each file server's SPN as a delegation
 * target and the HTTP SPN the config names.
 */
async function checkDelegation(config: Config, kerberos: Kerberos, fileServerSpns: readonly string[], directory: Directory | undefined): Promise<CheckResult[]> {
  const { account, keytab_file: file, http_spn: httpSpn } = kerberos.delegation!;
  const name = `Kerberos delegation ${account}`;
  let keytab: Buffer;
  let keys;
  try {
    keytab = readDelegationKeytab(config)!;
    keys = keysFor(parseKeytab(keytab), account, kerberos.realm);
  } catch (err) {
    return [fail(`${name} keytab`, (err as Error).message, exportFix(kerberos, account, file, config.smb.domain, httpSpn))];
  }
  const entry = directory ? await directory.kerberosAccount(account).catch(() => null) : null;
  const results: CheckResult[] = [];
  try {
    const tgt = await new KerberosClient(kerberosSettings(kerberos), account, { keys }, { forwardable: true }).ticketGrantingTicket();
    if (!(tgt.flags & KdcOption.FORWARDABLE)) {
      results.push(fail(`${name} TGT`, `the KDC gave ${account} a TGT that is not forwardable: S4U2Proxy would be refused`,
        `samba-tool user sensitive ${account} off (Windows: untick "Account is sensitive and cannot be delegated" on the account's Account tab)`));
    } else {
      results.push(ok(`${name} keytab`, `a forwardable TGT for ${account}@${kerberos.realm} with the keys of ${file}`));
    }
  } catch (err) {
    return logonFailure(`${name} keytab`, err as KerberosError, account, versionMismatch(keytab, account, kerberos.realm, entry));
  }
  if (!directory) return [...results, skip(`${name} settings`, 'protocol transition and delegation targets are read from the directory: needs a working LDAP bind')];
  if (!entry) return [...results, fail(`${name} settings`, `no account ${account} under ${config.ldap.base_dn}`, 'correct kerberos.delegation.account')];
  const tab = 'Windows: the account\'s Delegation tab, "Trust this user for delegation to specified services only"';
  results.push(
    entry.protocolTransition
      ? ok(`${name} protocol transition`, `${account} may use any authentication protocol (TRUSTED_TO_AUTH_FOR_DELEGATION)`)
      : fail(`${name} protocol transition`, `${account} lacks protocol transition (userAccountControl TRUSTED_TO_AUTH_FOR_DELEGATION): S4U2Self tickets are not forwardable`,
        `samba-tool delegation for-any-protocol ${account} on (${tab} with "Use any authentication protocol")`),
  );
  const allowed = new Set(entry.allowedToDelegateTo.map((spn) => spn.toLowerCase()));
  for (const spn of fileServerSpns) {
    results.push(
      allowed.has(spn.toLowerCase())
        ? ok(`${name} target ${spn}`, `in msDS-AllowedToDelegateTo of ${account}`)
        : fail(`${name} target ${spn}`, `${spn} is not in msDS-AllowedToDelegateTo of ${account}: S4U2Proxy to the file server would be refused`,
          `samba-tool delegation add-service ${account} ${spn} (${tab}, Add…, the file server's computer, service type cifs)`),
    );
  }
  if (httpSpn) {
    const has = entry.servicePrincipalNames.some((spn) => spn.toLowerCase() === httpSpn.toLowerCase());
    results.push(
      has
        ? ok(`${name} SPN ${httpSpn}`, `registered on ${account}`)
        : fail(`${name} SPN ${httpSpn}`, `${account} has no SPN ${httpSpn}: clients get no ticket for the service`,
          `samba-tool spn add ${httpSpn} ${account} (Windows: setspn -S ${httpSpn} ${account}), then export the keytab again with --principal=${httpSpn}`),
    );
  }
  return results;
}
