/**
 * The one place where the SMB credentials of a logon are built from the config: a WebDAV user's name and
 * password, or the indexer account with its password or keytab, become NTLM credentials, Kerberos credentials,
 * or Kerberos with NTLM as fallback, as smb.auth says. The Kerberos clients (each with its ticket cache) are kept
 * per principal and secret for the life of the thread, so that a user's next request finds its tickets.
 * A user a trusted caller names is reached through the service account of kerberos.delegation (S4U2Self, then
 * S4U2Proxy): Kerberos only, with no password, whatever smb.auth says.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/schema.js';
import type { Credentials } from '../smb/index.js';
import { KerberosClient, type KerberosSettings, type PresentedTicket } from '../kerberos/client.js';
import type { ClientSecret } from '../kerberos/exchanges.js';
import { parseDnsServer } from '../kerberos/kdc-dns.js';
import { keysFor, parseKeytab } from '../kerberos/keytab.js';

const KDC_PORT = 88;
/** Principals whose tickets one thread keeps; beyond that the least recently used start afresh. */
const MAX_CLIENTS = 2000;

export function kerberosSettings(kerberos: NonNullable<Config['kerberos']>): KerberosSettings {
  return {
    realm: kerberos.realm,
    ...(kerberos.kdcs
      ? {
          kdcs: kerberos.kdcs.map((k) => {
            const [host, port] = k.split(':');
            return { host: host!, port: port ? Number(port) : KDC_PORT };
          }),
        }
      : {}),
    dnsServers: (kerberos.dns_servers ?? []).map(parseDnsServer),
    timeoutMs: kerberos.timeout,
    ticketLifetimeSeconds: Math.floor(kerberos.ticket_lifetime / 1000),
  };
}

export class SmbLogons {
  private readonly clients = new LRUCache<string, KerberosClient>({ max: MAX_CLIENTS });
  private readonly settings: KerberosSettings | undefined;
  /** The delegation account's client (its tickets, and those in users' names), made on first use. */
  private delegator: KerberosClient | undefined;

  /** `delegationKeytab`: the keys of kerberos.delegation.account (ServiceSecrets). */
  constructor(
    private readonly config: Pick<Config, 'smb' | 'kerberos'>,
    private readonly secrets: { delegationKeytab?: Uint8Array } = {},
  ) {
    this.settings = config.kerberos && config.smb.auth !== 'ntlm' ? kerberosSettings(config.kerberos) : undefined;
  }

  /** Whether kerberos.delegation is configured (and its keytab was read): `delegated` can be asked. */
  get delegates(): boolean {
    return this.config.kerberos?.delegation !== undefined && this.secrets.delegationKeytab !== undefined;
  }

  /** The service principal of the file server at `host` (kerberos.spns, else cifs/<host>). */
  spnFor(host: string): string {
    return this.config.kerberos?.spns[host] ?? `cifs/${host}`;
  }

  /**
   * A user's own logon. `domain` is the NetBIOS domain the user named (or '' for a name with @realm): a user of
   * another domain or realm is not one this realm's KDC can vouch for, so that logon stays NTLM.
   */
  user(host: string, domain: string, user: string, password: string): Credentials {
    const ntlm = { domain, user, password };
    const [name, realm] = user.includes('@') ? (user.split('@', 2) as [string, string]) : [user, undefined];
    const sameDomain = realm ? realm.toUpperCase() === this.settings?.realm : domain.toUpperCase() === this.config.smb.domain.toUpperCase();
    if (!this.settings || !sameDomain) return ntlm;
    return { ...ntlm, kerberos: this.kerberos(host, name, { password }, password) };
  }

  /** The indexer account: keys from its keytab when one is configured, else its password. */
  indexer(host: string, secrets: { indexerPassword?: string; indexerKeytab?: Uint8Array }): Credentials {
    const { user } = this.config.smb.indexer_service_account;
    const password = secrets.indexerPassword ?? '';
    const ntlm = { domain: this.config.smb.domain, user, password };
    if (!this.settings) return ntlm;
    if (secrets.indexerKeytab) {
      // A Buffer arrives in a worker thread as a plain Uint8Array.
      const keytab = Buffer.from(secrets.indexerKeytab);
      const keys = keysFor(parseKeytab(keytab), user, this.settings.realm);
      return { ...ntlm, kerberos: this.kerberos(host, user, { keys }, keytab.toString('base64')) };
    }
    return { ...ntlm, kerberos: this.kerberos(host, user, { password }, password) };
  }

  /**
   * A user reached by constrained delegation: `user` (a sAMAccountName of the realm) has no password here; the
   * delegation account's forwardable TGT obtains the user's ticket for the file server's SPN, with S4U2Self or,
   * when the user presented a ticket to this service (HTTP Negotiate), on that ticket (`presented`, with the SID of
   * its PAC). Throws a KerberosError (KEYTAB) when the keytab holds no key of the account; call only when `delegates`.
   */
  delegated(host: string, user: string, presented?: PresentedTicket): Credentials {
    const { kerberos } = this.config;
    const delegation = kerberos?.delegation;
    if (!kerberos || !delegation || !this.secrets.delegationKeytab) throw new Error('kerberos.delegation is not configured');
    if (!this.delegator) {
      const settings = kerberosSettings(kerberos);
      // A Buffer arrives in a worker thread as a plain Uint8Array.
      const keys = keysFor(parseKeytab(Buffer.from(this.secrets.delegationKeytab)), delegation.account, settings.realm);
      this.delegator = new KerberosClient(settings, delegation.account, { keys }, { forwardable: true });
    }
    return {
      domain: this.config.smb.domain,
      user,
      password: '',
      kerberos: { client: this.delegator.onBehalfOf(user, presented), spn: this.spnFor(host), fallbackToNtlm: false, delegatedBy: delegation.account },
    };
  }

  private kerberos(host: string, user: string, secret: ClientSecret, secretText: string): NonNullable<Credentials['kerberos']> {
    const key = `${user.toLowerCase()}\0${createHash('sha256').update(secretText).digest('hex')}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new KerberosClient(this.settings!, user, secret);
      this.clients.set(key, client);
    }
    return { client, spn: this.spnFor(host), fallbackToNtlm: this.config.smb.auth === 'negotiate' };
  }
}
