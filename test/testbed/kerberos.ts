// The testbed DC's KDC as the Kerberos tests use it: the SPN of its file server, keytabs exported from the
// directory, and a mode in which the file server refuses NTLM (smb.conf `ntlm auth = disabled`, answered with
// STATUS_NTLM_BLOCKED), so that a test proves a logon used nothing but Kerberos.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KerberosSettings } from '../../src/kerberos/client.js';
import { dcAdminClient, findByAccountName } from './accounts.js';
import { baseDn, dcAddress, dcAdmin, dcHostName, ldapsUrl, realm } from './domain.js';
import { layout } from './layout.js';
import { run } from './processes.js';
import { reloadSambaConfig } from './samba.js';
import type { NtlmMode } from './ntlm-mode.js';

/** The file server's service principal: its DNS name, not the address the tests connect to. */
export const fileServerSpn = `cifs/${dcHostName.toUpperCase()}.${realm.toLowerCase()}`;

/** The kerberos section of a service config for the testbed. */
export const kerberosConfig = { realm, kdcs: [dcAddress], spns: { [dcAddress]: fileServerSpn } };

/** A Kerberos client's settings for the testbed KDC (tests and benchmarks that use the client directly). */
export function kdcSettings(ticketLifetimeSeconds = 3600): KerberosSettings {
  return { realm, kdcs: [{ host: dcAddress, port: 88 }], timeoutMs: 10_000, ticketLifetimeSeconds };
}

/** Writes the keys of `user` into `file` (mode 600), as an administrator would with samba-tool. */
export async function exportKeytab(user: string, file: string): Promise<void> {
  await run('samba-tool', ['domain', 'exportkeytab', file, `--principal=${user}@${realm}`, '-s', layout.samba.conf]);
  await chmod(file, 0o600);
}

const NTLM_OFF = '\tntlm auth = disabled\n';
const GLOBAL = '[global]\n';

/**
 * The testbed's own krb5.conf (`.testbed/krb5.conf`) for Samba's clients run with KRB5_CONFIG: the realm and its
 * KDC on loopback, no DNS (there is none for edu.test), and never the machine's /etc/krb5.conf.
 */
const krb5Config = [
  '[libdefaults]',
  `\tdefault_realm = ${realm}`,
  '\tdns_lookup_kdc = false',
  '\tdns_lookup_realm = false',
  '\tdns_canonicalize_hostname = false',
  '\trdns = false',
  '[realms]',
  `\t${realm} = {`,
  `\t\tkdc = ${dcAddress}`,
  '\t}',
  '[domain_realm]',
  `\t.${realm.toLowerCase()} = ${realm}`,
  `\t${realm.toLowerCase()} = ${realm}`,
  '',
].join('\n');

/**
 * Makes the DC refuse (or accept again) every NTLM logon; the change applies to new sessions at once. This is the
 * switch itself, which `up` sets from its `--ntlm` option; tests use refuseNtlm. Writes the krb5.conf first, which
 * Samba's clients need from then on.
 */
export async function setNtlmRefused(refused: boolean): Promise<void> {
  await writeFile(layout.krb5Config, krb5Config);
  const current = await readFile(layout.samba.conf, 'utf8');
  const without = current.replace(NTLM_OFF, '');
  const wanted = refused ? without.replace(GLOBAL, GLOBAL + NTLM_OFF) : without;
  if (wanted === current) return;
  await writeFile(layout.samba.conf, wanted);
  await reloadSambaConfig();
}

/**
 * For a test that proves a logon used Kerberos alone: `true` makes the DC refuse NTLM, `false` gives the testbed its
 * own mode back (NTLM stays refused when it was brought up with `--ntlm=off`, which env.json records).
 */
export async function refuseNtlm(refuse: boolean): Promise<void> {
  const env = JSON.parse(await readFile(layout.envFile, 'utf8')) as { smb: { ntlm?: NtlmMode } };
  await setNtlmRefused(refuse || env.smb.ntlm === 'off');
}

/** The service account the proxy delegates with: an SPN, protocol transition, and the file server as target. */
export const delegationAccount = { user: 'svc-proxy', password: 'Proxy-Pass-2026!', spn: 'HTTP/proxy.edu.test' } as const;
/** A user marked "sensitive and cannot be delegated" (UF_NOT_DELEGATED). */
export const sensitiveUser = { user: 'sensibel', password: 'Sensibel-Pass-2026!' } as const;
/** A member of Protected Users, whom Windows KDCs never delegate for (the testbed's Samba 4.17 does). */
export const protectedUser = { user: 'geschuetzt', password: 'Geschuetzt-Pass-2026!' } as const;

const samba = (...args: string[]) => run('samba-tool', [...args, '-s', layout.samba.conf], { allowFailure: true });

/**
 * Creates (idempotently) the delegation account, the sensitive user and the Protected Users member, as an administrator would with
 * samba-tool (README, Kerberos and single sign-on). Kept out of accounts.ts: these accounts exist for the Kerberos
 * tests only.
 */
export async function ensureDelegationAccounts(): Promise<void> {
  if (await delegationAccountsInPlace()) return;
  for (const account of [delegationAccount, sensitiveUser, protectedUser]) {
    if ((await samba('user', 'show', account.user)).code !== 0) {
      const created = await samba('user', 'create', account.user, account.password);
      if (created.code !== 0) throw new Error(`samba-tool user create ${account.user}: ${created.stderr}`);
    }
  }
  const { user, spn } = delegationAccount;
  if (!(await samba('spn', 'list', user)).stdout.includes(spn)) await samba('spn', 'add', spn, user);
  await samba('delegation', 'for-any-protocol', user, 'on');
  if (!(await samba('delegation', 'show', user)).stdout.includes(fileServerSpn)) await samba('delegation', 'add-service', user, fileServerSpn);
  await samba('user', 'sensitive', sensitiveUser.user, 'on');
  if (!(await samba('group', 'listmembers', 'Protected Users')).stdout.split('\n').includes(protectedUser.user)) {
    await samba('group', 'addmembers', 'Protected Users', protectedUser.user);
  }
  await allowAesOnly(user);
}

/** msDS-SupportedEncryptionTypes: AES128 and AES256 (RFC 3962). */
const AES_ONLY = 0x08 | 0x10;
/** userAccountControl bits (MS-ADTS 2.2.16) that `delegation for-any-protocol on` and `user sensitive on` set. */
const TRUSTED_TO_AUTH_FOR_DELEGATION = 0x1000000;
const NOT_DELEGATED = 0x100000;

/**
 * Whether the directory already holds everything ensureDelegationAccounts sets up, read in one LDAP search: once
 * set up, its samba-tool and ldapmodify checks are nine process starts (Python's, about 0.45 s of CPU each) for
 * every Kerberos test file, in the serial tier.
 */
async function delegationAccountsInPlace(): Promise<boolean> {
  const env = JSON.parse(await readFile(layout.envFile, 'utf8')) as { ldap: { ca_file: string; server_name: string } };
  const client = await dcAdminClient({ caFile: env.ldap.ca_file, serverName: env.ldap.server_name });
  try {
    const entries = await findByAccountName(client, [delegationAccount.user, sensitiveUser.user, protectedUser.user],
      ['userAccountControl', 'servicePrincipalName', 'msDS-AllowedToDelegateTo', 'msDS-SupportedEncryptionTypes', 'memberOf']);
    const list = (user: string, attribute: string) => [entries.get(user)?.[attribute] ?? []].flat().map((v) => String(v).toLowerCase());
    const flags = (user: string) => Number(entries.get(user)?.['userAccountControl'] ?? 0);
    return list(delegationAccount.user, 'servicePrincipalName').includes(delegationAccount.spn.toLowerCase())
      && list(delegationAccount.user, 'msDS-AllowedToDelegateTo').includes(fileServerSpn.toLowerCase())
      && (flags(delegationAccount.user) & TRUSTED_TO_AUTH_FOR_DELEGATION) !== 0
      && Number(entries.get(delegationAccount.user)?.['msDS-SupportedEncryptionTypes']) === AES_ONLY
      && (flags(sensitiveUser.user) & NOT_DELEGATED) !== 0
      && list(protectedUser.user, 'memberOf').includes(`CN=Protected Users,CN=Users,${baseDn}`.toLowerCase());
  } finally {
    await client.unbind();
  }
}

/**
 * Lets the KDC seal tickets to the account's SPNs with AES: without msDS-SupportedEncryptionTypes a user account's
 * service tickets are RC4 (etype 23, measured on the testbed's Samba 4.17), which the service's acceptor refuses.
 * An administrator ticks "This account supports Kerberos AES 256 bit encryption" (README); here it is an LDAP modify.
 */
async function allowAesOnly(account: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'testbed-aes-'));
  const ldif = join(dir, 'aes.ldif');
  try {
    await writeFile(ldif, `dn: CN=${account},CN=Users,${baseDn}\nchangetype: modify\nreplace: msDS-SupportedEncryptionTypes\nmsDS-SupportedEncryptionTypes: ${AES_ONLY}\n`);
    await run('ldapmodify', ['-H', ldapsUrl, '-D', `${dcAdmin.user}@${realm}`, '-w', dcAdmin.password, '-f', ldif], { env: { ...process.env, LDAPTLS_REQCERT: 'never' } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
