/**
 * The Kerberos GSS-API mechanism as an acceptor (RFC 4120 3.2.3, RFC 4121 4.1): the service checks a client's
 * AP-REQ with its own keys from a keytab, so that a client holding a ticket for `HTTP/<name>` is authenticated
 * without a password. The ticket proves what the KDC says of the client; the authenticator, sealed with the ticket's
 * session key, proves the sender holds that key now (its time within the allowed skew, seen once: the replay cache).
 * The ticket's PAC (pac.ts), signed with the same service key, says who the client is: its SID and groups.
 * The accepted ticket is kept whole: S4U2Proxy presents it to the KDC as the evidence ticket to reach SMB in the
 * client's name.
 */
import { randomInt } from 'node:crypto';
import { encryptionType, type EncryptionKey, type EncryptionType } from './crypto.js';
import { KerberosError, KerberosProtocolError } from './errors.js';
import type { Credential } from './exchanges.js';
import { GSS_CHECKSUM, GssFlag, TokId, frame, unframe } from './gss.js';
import { entriesFor, type KeytabEntry } from './keytab.js';
import { ticketPacIdentity, type PacIdentity } from './pac.js';
import {
  ApOption,
  KeyUsage,
  TicketFlag,
  authenticatorTime,
  encodeApRep,
  encodeEncApRepPart,
  parseApReq,
  parseAuthenticator,
  parseEncTicketPart,
  principalText,
  type Checksum,
  type EncTicketPart,
  type Ticket,
  validFrom,
} from './messages.js';
import type { ReplayGuard } from './replay-cache.js';

/** Kerberos' usual limit of clock skew (RFC 4120 1.7, the KDC's default too): the acceptor's and its replay cache's. */
export const MAX_SKEW_SECONDS = 300;

interface AcceptorSettings {
  /** The service principal without the realm, e.g. `HTTP/files.edu.test`. */
  service: string;
  realm: string;
  /** The parsed keytab; every key version of the service is used, for tickets issued before a password change. */
  keytab: readonly KeytabEntry[];
  /** How far the client's clock may differ from this host's (MAX_SKEW_SECONDS). */
  maxSkewSeconds: number;
  /** The service's replay cache: it must keep an authenticator for at least this skew, or a replay would pass once it is gone. */
  replays: ReplayGuard;
}

export interface AcceptedContext {
  /** The ticket's client, e.g. `carla@EDU.TEST`. */
  client: string;
  /** What the ticket's PAC, its server signature verified, says of the client: the account's SID and groups. */
  pac: PacIdentity;
  /**
   * The client's ticket to this service with its session key, in the shape `s4u2proxy` takes as its evidence.
   * The KDC grants S4U2Proxy on it only if it is forwardable (`flags & TicketFlag.FORWARDABLE`) or the target
   * allows resource-based delegation.
   */
  evidence: Credential;
  /** RFC 4121 2: the initiator's subkey if it sent one, else the ticket's session key. */
  contextKey: EncryptionKey;
  /** The context flags of the GSS checksum (GssFlag). */
  gssFlags: number;
  /** The GSS AP-REP token that proves this service to the client, or null when it did not ask for mutual authentication. */
  replyToken: Buffer | null;
}

export class KerberosAcceptor {
  private readonly keys: KeytabEntry[];
  private readonly principal: string;

  /** Throws KEYTAB when the keytab holds no key of the service: a configuration error, found at startup. */
  constructor(private readonly settings: AcceptorSettings) {
    this.keys = entriesFor(settings.keytab, settings.service, settings.realm);
    this.principal = `${settings.service}@${settings.realm}`;
  }

  /** Accepts a Kerberos mechanism token (an InitialContextToken with an AP-REQ); rejects with a KerberosError on any refusal. */
  async accept(token: Buffer, now: Date = new Date()): Promise<AcceptedContext> {
    const { tokId, inner } = unframe(token);
    if (tokId !== TokId.AP_REQ) throw new KerberosProtocolError(`GSS token: expected AP-REQ, got token id 0x${tokId.toString(16)}`);
    const apReq = parseApReq(inner);
    const { part, serviceKey } = this.openTicket(apReq.ticket, now);
    const pac = ticketPacIdentity(part, serviceKey);
    const client = principalText(part.cname, part.crealm);
    if (apReq.authenticator.etype !== part.key.etype) throw new KerberosProtocolError('AP-REQ: the authenticator is not sealed with the session key\'s type');
    const auth = parseAuthenticator(encryptionType(part.key.etype).decrypt(part.key.value, KeyUsage.AP_REQ_AUTHENTICATOR, apReq.authenticator.cipher));
    if (principalText(auth.cname, auth.crealm) !== client) {
      throw new KerberosError('TICKET_INVALID', `the authenticator names ${principalText(auth.cname, auth.crealm)}, the ticket ${client}`);
    }
    const skewMs = Math.abs(now.getTime() - authenticatorTime(auth));
    if (skewMs > this.settings.maxSkewSeconds * 1000) {
      throw new KerberosError(
        'CLOCK_SKEW',
        `the clocks of ${client} and this service differ by ${Math.ceil(skewMs / 1000)} seconds (at most ${this.settings.maxSkewSeconds} allowed): synchronise the client with the domain's time (NTP)`,
      );
    }
    const gssFlags = gssFlagsOf(auth.cksum);
    // Only now, with the authenticator proven genuine, may it take a place in the cache.
    await this.settings.replays.admit(client, auth.ctime, auth.cusec, now);
    const mutual = (apReq.options & ApOption.MUTUAL_REQUIRED) !== 0 || (gssFlags & GssFlag.MUTUAL) !== 0;
    return {
      client,
      pac,
      evidence: {
        client: part.cname,
        crealm: part.crealm,
        ticket: apReq.ticket,
        key: part.key,
        flags: part.flags,
        authtime: part.authtime,
        starttime: validFrom(part),
        endtime: part.endtime,
        ...(part.renewTill ? { renewTill: part.renewTill } : {}),
      },
      contextKey: auth.subkey ?? part.key,
      gssFlags,
      replyToken: mutual ? apRepToken(part.key, auth.ctime, auth.cusec) : null,
    };
  }

  /** The ticket's enc-part under the service key of its etype and key version (returned too), its times checked. */
  private openTicket(ticket: Ticket, now: Date): { part: EncTicketPart; serviceKey: EncryptionKey } {
    const named = `${principalText(ticket.sname)}@${ticket.realm}`;
    if (named.toLowerCase() !== this.principal.toLowerCase()) {
      throw new KerberosError('TICKET_INVALID', `the ticket is for ${named}, this service is ${this.principal}`);
    }
    const { etype, kvno } = ticket.encPart;
    const type = ticketType(etype, this.principal);
    const entry = this.keys.find((e) => e.key.etype === etype && (kvno === undefined || e.kvno === kvno));
    if (!entry) {
      throw new KerberosError(
        'KEYTAB',
        `the keytab holds no key of version ${kvno ?? 'any'} and type ${etype} for ${this.principal} (export it anew: samba-tool domain exportkeytab --principal=${this.principal}, or ktpass)`,
      );
    }
    const part = parseEncTicketPart(type.decrypt(entry.key.value, KeyUsage.TICKET, ticket.encPart.cipher));
    const skew = this.settings.maxSkewSeconds * 1000;
    const start = validFrom(part);
    if (part.flags & TicketFlag.INVALID) throw new KerberosError('TICKET_INVALID', 'the ticket is marked invalid (postdated, not yet validated by the KDC)');
    if (start.getTime() - skew > now.getTime()) throw new KerberosError('TICKET_INVALID', `the ticket is not valid before ${start.toISOString()}`);
    if (part.endtime.getTime() + skew < now.getTime()) throw new KerberosError('TICKET_INVALID', `the ticket expired at ${part.endtime.toISOString()}`);
    return { part, serviceKey: entry.key };
  }
}

/**
 * The encryption type the KDC sealed a ticket to this service with. AD and Samba seal tickets to a user account's
 * SPN with RC4 unless the account allows AES (measured on Samba 4.17): the refusal says how to allow it.
 */
function ticketType(etype: number, principal: string): EncryptionType {
  try {
    return encryptionType(etype);
  } catch (err) {
    if (!(err instanceof KerberosError && err.code === 'UNSUPPORTED_ETYPE')) throw err;
    throw new KerberosError('UNSUPPORTED_ETYPE', `the KDC sealed the ticket for ${principal} with encryption type ${etype} (23 is RC4), and only AES is accepted: `
      + 'let the account\'s tickets use AES (msDS-SupportedEncryptionTypes 24; Windows: "This account supports Kerberos AES 256 bit encryption")');
  }
}

/** The context flags of the 0x8003 checksum (RFC 4121 4.1.1): Lgth (16), the channel bindings' hash, the flags. */
function gssFlagsOf(cksum: Checksum | undefined): number {
  if (!cksum || cksum.type !== GSS_CHECKSUM) throw new KerberosProtocolError('AP-REQ: the authenticator carries no GSS checksum (type 0x8003)');
  if (cksum.value.length < 24 || cksum.value.readUInt32LE(0) !== 16) throw new KerberosProtocolError('AP-REQ: malformed GSS checksum');
  // Channel bindings are not checked: no caller binds a channel, which RFC 4121 lets the acceptor ignore.
  return cksum.value.readUInt32LE(20);
}

/** AP-REP echoing the authenticator's time under the session key (usage 12): only the service key's holder could. */
function apRepToken(sessionKey: EncryptionKey, ctime: Date, cusec: number): Buffer {
  const plain = encodeEncApRepPart({ ctime, cusec, seqNumber: randomInt(0, 0x7fffffff) });
  const cipher = encryptionType(sessionKey.etype).encrypt(sessionKey.value, KeyUsage.AP_REP_ENC_PART, plain);
  return frame(TokId.AP_REP, encodeApRep({ etype: sessionKey.etype, cipher }));
}
