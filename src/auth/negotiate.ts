/**
 * `Authorization: Negotiate` (RFC 4559) on /dav/ and the wiki endpoints, for clients that hold a Kerberos ticket
 * for the service's `kerberos.delegation.http_spn` (curl --negotiate, browsers, the Windows WebDAV redirector).
 * The ticket is checked with the keytab of kerberos.delegation (src/kerberos/acceptor.ts), each authenticator is
 * seen once by the service's one replay cache (the supervisor's), the client is the account of the SID its PAC
 * names (src/kerberos/pac.ts: a ticket without a valid PAC is refused), and the accepted ticket is the evidence
 * with which S4U2Proxy reaches SMB as the ticket's client. Every refusal is a 401 with a JSON error naming the reason in terms
 * the client can act on; the Kerberos text, which names the service's principal, its realm and how to export its
 * keytab, goes to the log: a refused token is all an anonymous caller needs to send.
 */
import type { Config } from '../config/schema.js';
import { challengeHeader } from '../http/challenges.js';
import { HttpError } from '../http/http-error.js';
import { KerberosAcceptor, MAX_SKEW_SECONDS } from '../kerberos/acceptor.js';
import { KerberosError } from '../kerberos/errors.js';
import type { Credential } from '../kerberos/exchanges.js';
import { parseKeytab } from '../kerberos/keytab.js';
import { acceptNegotiate } from '../kerberos/negotiate.js';
import { remoteReplayGuard, type ReplayVerdict } from '../kerberos/replay-cache.js';

/** A client authenticated by its ticket. */
interface NegotiatedUser {
  /** The name the ticket's client has (in the service's realm): what messages call the client, not who it is. */
  user: string;
  /** Who the client is: the account's SID from the ticket's PAC, which the directory is asked by. */
  sid: string;
  /**
   * The SIDs of the client's groups as the PAC has them, from when the KDC issued the ticket; the service's
   * decisions use the directory's `tokenGroups` of `sid`, as of now.
   */
  groupSids: string[];
  /** The client's ticket to this service: the evidence S4U2Proxy presents. */
  evidence: Credential;
  /** The `WWW-Authenticate: Negotiate <AP-REP>` of the answer (mutual authentication), if the client asked for it. */
  wwwAuthenticate: string | null;
}

/** Whether an Authorization header uses the Negotiate scheme (whatever its token). */
export function isNegotiate(authorization: string | undefined): boolean {
  return authorization !== undefined && /^\s*negotiate(\s|$)/i.test(authorization);
}

export class NegotiateAuth {
  private readonly acceptor: KerberosAcceptor;
  private readonly realm: string;

  private constructor(acceptor: KerberosAcceptor, realm: string) {
    this.acceptor = acceptor;
    this.realm = realm;
  }

  /**
   * The acceptor of kerberos.delegation.http_spn, or null when HTTP Negotiate is not configured; `admit` asks the
   * service's one replay cache (the supervisor's). Throws a KerberosError (KEYTAB) when the keytab holds no key of
   * the SPN: a configuration error, found at startup.
   */
  static fromConfig(
    config: Pick<Config, 'kerberos'>, keytab: Uint8Array | undefined, admit: (client: string, ctime: Date, cusec: number, now: Date) => Promise<ReplayVerdict>,
  ): NegotiateAuth | null {
    const kerberos = config.kerberos;
    const spn = kerberos?.delegation?.http_spn;
    if (!kerberos || !spn || !keytab) return null;
    // A Buffer arrives in a worker thread as a plain Uint8Array.
    const acceptor = new KerberosAcceptor({ service: spn, realm: kerberos.realm, keytab: parseKeytab(Buffer.from(keytab)), maxSkewSeconds: MAX_SKEW_SECONDS, replays: remoteReplayGuard(admit) });
    return new NegotiateAuth(acceptor, kerberos.realm);
  }

  /** The client of a Negotiate header; a 401 naming the reason when the token is refused. */
  async authenticate(authorization: string, challenge: string): Promise<NegotiatedUser> {
    let accepted;
    try {
      accepted = await acceptNegotiate(this.acceptor, authorization);
    } catch (err) {
      if (!(err instanceof KerberosError)) throw err;
      if (err.code === 'REPLAY_CACHE_FULL') throw new HttpError(503, 'negotiate_busy', `Negotiate: ${err.message}`, { 'retry-after': '5' });
      const code = negotiateErrorCode(err);
      throw new HttpError(401, code, `Negotiate: ${CLIENT_MESSAGES[code] ?? REFUSED}`, challengeHeader(challenge), err.message);
    }
    const { client, evidence } = accepted.context;
    const { names } = evidence.client;
    // A user of another realm, or a service principal (host/…), is no account this realm's file servers know.
    if (evidence.crealm.toUpperCase() !== this.realm || names.length !== 1) {
      throw new HttpError(401, 'negotiate_foreign_principal', `Negotiate: ${CLIENT_MESSAGES['negotiate_foreign_principal']}`, challengeHeader(challenge),
        `${client} is not a user of the realm ${this.realm}`);
    }
    const { userSid, groupSids } = accepted.context.pac;
    return { user: names[0]!, sid: userSid, groupSids, evidence, wwwAuthenticate: accepted.wwwAuthenticate };
  }
}

/** What the client of a refused token is told, by error code: what it can do, naming nothing of the deployment. */
const CLIENT_MESSAGES: Partial<Record<string, string>> = {
  negotiate_malformed: 'the token is not a Kerberos token this service reads; send a Kerberos ticket for this service, or Basic credentials',
  negotiate_ntlm: 'the client sent NTLM (it holds no Kerberos ticket for this service); only Kerberos is accepted: send Basic credentials',
  negotiate_replay: 'this token was presented before (a replayed Negotiate token); send a new one',
  negotiate_ticket_invalid: 'the Kerberos ticket is not for this service, or not valid now; get a new ticket for the host name in the URL',
  negotiate_integrity: 'the Kerberos ticket does not open with this service\'s key; get a new ticket',
  negotiate_clock_skew: `the clocks of the client and this service differ by more than ${MAX_SKEW_SECONDS} seconds: synchronise the client with the domain's time (NTP)`,
  negotiate_keytab: 'this service holds no key for the Kerberos ticket; send Basic credentials (the administrator finds why in the log)',
  negotiate_unsupported_etype: 'the Kerberos ticket is sealed with an encryption type this service does not accept (it accepts AES); send Basic credentials',
  negotiate_foreign_principal: 'the Kerberos ticket names no user of this service\'s domain',
  negotiate_pac_invalid: 'the Kerberos ticket carries no valid account data (PAC) signed for this service; get a new ticket from a domain controller, or send Basic credentials',
};
const REFUSED = 'the Kerberos ticket was refused; send Basic credentials';

/** The JSON error code of a refused token: the replay and NTLM cases by name, the rest as what failed. */
function negotiateErrorCode(err: KerberosError): string {
  if (err.code === 'REPLAY') return 'negotiate_replay';
  if (err.code === 'PROTOCOL_ERROR' && /NTLM/.test(err.message)) return 'negotiate_ntlm';
  if (err.code === 'PROTOCOL_ERROR') return 'negotiate_malformed';
  return `negotiate_${err.code.toLowerCase()}`;
}
