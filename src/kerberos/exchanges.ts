/**
 * The two KDC exchanges of RFC 4120: AS (3.1, a TGT for a client that proves its key with PA-ENC-TIMESTAMP,
 * learning the salt from PA-ETYPE-INFO2 when the KDC asks for pre-authentication) and TGS (3.3, a service ticket
 * for the holder of a TGT). KDC refusals become KerberosErrors that say what to do.
 */
import { randomInt } from 'node:crypto';
import { SUPPORTED_ETYPES, encryptionType, s2kIterations, type EncryptionKey } from './crypto.js';
import { KerberosError } from './errors.js';
import {
  KdcErrorCode,
  KdcOption,
  KeyUsage,
  MsgType,
  NameType,
  PaType,
  encodeApReq,
  encodeAuthenticator,
  encodeEncryptedDataDer,
  encodeKdcReq,
  encodeKdcReqBody,
  encodePaEncTsEnc,
  encodePaPacRequest,
  parseEncKdcRepPart,
  parseEtypeInfo2,
  parseKdcReply,
  parseMethodData,
  principalText,
  type KdcRep,
  type KrbError,
  type PaData,
  type PrincipalName,
  type Ticket,
  validFrom,
} from './messages.js';

/** A ticket with its session key: what the client holds after an exchange. */
export interface Credential {
  client: PrincipalName;
  crealm: string;
  ticket: Ticket;
  key: EncryptionKey;
  flags: number;
  authtime: Date;
  /** When the ticket became valid (validFrom): a service ticket's authtime may be minutes older. */
  starttime: Date;
  endtime: Date;
  renewTill?: Date;
}

/** How the client proves who it is: a password (keys by string-to-key with the KDC's salt) or keytab keys. */
export type ClientSecret = { password: string } | { keys: readonly EncryptionKey[] };

export interface KdcChannel {
  realm: string;
  send(message: Buffer): Promise<Buffer>;
}

const SKEW_HINT = 'synchronise this host with the domain controllers (NTP), or raise the KDC\'s allowed skew';

/** A KRB-ERROR as a KerberosError whose message names the cause and, where one exists, the fix. */
export function kdcFailure(e: KrbError, who: string, now: number = Date.now()): KerberosError {
  const text = e.eText ? ` (${e.eText})` : '';
  switch (e.errorCode) {
    case KdcErrorCode.SKEW: {
      const seconds = Math.round((e.stime.getTime() - now) / 1000);
      return new KerberosError('CLOCK_SKEW', `clock skew: the KDC's clock is ${seconds} s ${seconds >= 0 ? 'ahead of' : 'behind'} this host's, more than it allows; ${SKEW_HINT}`, e.errorCode);
    }
    case KdcErrorCode.C_PRINCIPAL_UNKNOWN:
      return new KerberosError('KDC_ERROR', `${who}: the KDC knows no such client principal${text}`, e.errorCode);
    case KdcErrorCode.S_PRINCIPAL_UNKNOWN:
      return new KerberosError('KDC_ERROR', `${who}: the KDC knows no service principal ${principalText(e.sname, e.realm)}; add the SPN to the server's account${text}`, e.errorCode);
    case KdcErrorCode.PREAUTH_FAILED:
      return new KerberosError('KDC_ERROR', `${who}: wrong password or key${text}`, e.errorCode);
    case KdcErrorCode.CLIENT_REVOKED:
      return new KerberosError('KDC_ERROR', `${who}: the account is disabled or locked out${text}`, e.errorCode);
    case KdcErrorCode.BADOPTION:
      return new KerberosError(
        'KDC_ERROR',
        `${who}: the KDC refused the request (for delegation: the service is not in the account's msDS-AllowedToDelegateTo, the user is marked sensitive or is in Protected Users, or the account may not use protocol transition)${text}`,
        e.errorCode,
      );
    case KdcErrorCode.KEY_EXPIRED:
      return new KerberosError('KDC_ERROR', `${who}: the password has expired${text}`, e.errorCode);
    default:
      return new KerberosError('KDC_ERROR', `${who}: the KDC refused with error ${e.errorCode}${text}`, e.errorCode);
  }
}

function decodeReply(buf: Buffer, expected: number, who: string, now: Date): KdcRep {
  const reply = parseKdcReply(buf);
  if (reply.kind === 'error') throw kdcFailure(reply.error, who, now.getTime());
  if (reply.rep.msgType !== expected) throw new KerberosError('PROTOCOL_ERROR', `${who}: the KDC answered message type ${reply.rep.msgType}, expected ${expected}`);
  return reply.rep;
}

function credentialFrom(rep: KdcRep, key: EncryptionKey, usage: number, nonce: number, who: string): Credential {
  if (rep.encPart.etype !== key.etype) {
    throw new KerberosError('PROTOCOL_ERROR', `${who}: the reply is encrypted with etype ${rep.encPart.etype}, the key is of etype ${key.etype}`);
  }
  const part = parseEncKdcRepPart(encryptionType(key.etype).decrypt(key.value, usage, rep.encPart.cipher));
  // The nonce ties the reply to this request: a replayed older reply carries another one.
  if (part.nonce !== nonce) throw new KerberosError('INTEGRITY', `${who}: the reply's nonce does not match the request's`);
  return {
    client: rep.cname,
    crealm: rep.crealm,
    ticket: rep.ticket,
    key: part.key,
    flags: part.flags,
    authtime: part.authtime,
    starttime: validFrom(part),
    endtime: part.endtime,
    ...(part.renewTill ? { renewTill: part.renewTill } : {}),
  };
}

/** The client's long-term key for the etype the KDC chose, with the salt the KDC named. */
function clientKey(secret: ClientSecret, padata: PaData[], realm: string, client: PrincipalName, who: string): EncryptionKey {
  const info = padata.find((p) => p.type === PaType.ETYPE_INFO2);
  const entries = info ? parseEtypeInfo2(info.value) : [];
  const offered = entries.filter((e) => SUPPORTED_ETYPES.includes(e.etype));
  if ('keys' in secret) {
    // ETYPE-INFO2 lists the KDC's preference; without it, the keytab's strongest key.
    for (const e of offered) {
      const k = secret.keys.find((key) => key.etype === e.etype);
      if (k) return k;
    }
    const k = secret.keys.find((key) => SUPPORTED_ETYPES.includes(key.etype) && entries.length === 0);
    if (k) return k;
    throw new KerberosError('KEYTAB', `${who}: the keytab has no key of an etype the KDC offers (${entries.map((e) => e.etype).join(', ') || 'none'})`);
  }
  const chosen = offered[0];
  if (!chosen) throw new KerberosError('UNSUPPORTED_ETYPE', `${who}: the KDC offers no AES key for this account (etypes ${entries.map((e) => e.etype).join(', ') || 'none'}); set a new password so that AES keys are made`);
  const salt = chosen.salt ?? realm + client.names.join('');
  const type = encryptionType(chosen.etype);
  return { etype: chosen.etype, value: type.stringToKey(secret.password, salt, s2kIterations(type, chosen.s2kparams)) };
}

interface AsOptions {
  /** Requested lifetime; the KDC may shorten it. */
  lifetimeSeconds: number;
  forwardable?: boolean;
  now?: () => Date;
}

/** AS exchange: a TGT for `user` in the channel's realm. */
export async function asExchange(kdc: KdcChannel, user: string, secret: ClientSecret, options: AsOptions): Promise<Credential> {
  const now = options.now ?? (() => new Date());
  const client: PrincipalName = { type: NameType.PRINCIPAL, names: [user] };
  const who = `logon of ${user}@${kdc.realm}`;
  const nonce = randomInt(1, 0x7fffffff);
  const body = encodeKdcReqBody({
    options: KdcOption.CANONICALIZE | (options.forwardable ? KdcOption.FORWARDABLE : 0),
    cname: client,
    realm: kdc.realm,
    sname: { type: NameType.SRV_INST, names: ['krbtgt', kdc.realm] },
    till: new Date(now().getTime() + options.lifetimeSeconds * 1000),
    nonce,
    etypes: SUPPORTED_ETYPES,
  });
  const pacRequest: PaData = { type: PaType.PAC_REQUEST, value: encodePaPacRequest(true) };
  // The first request carries no pre-authentication: the KDC answers with the salts of the account's keys.
  const first = parseKdcReply(await kdc.send(encodeKdcReq(MsgType.AS_REQ, [pacRequest], body)));
  let padata: PaData[];
  if (first.kind === 'rep') {
    throw new KerberosError('PROTOCOL_ERROR', `${who}: the KDC issued a TGT without pre-authentication; the account must require it`);
  } else if (first.error.errorCode === KdcErrorCode.PREAUTH_REQUIRED && first.error.eData) {
    padata = parseMethodData(first.error.eData);
  } else {
    throw kdcFailure(first.error, who, now().getTime());
  }
  const key = clientKey(secret, padata, kdc.realm, client, who);
  const timestamp = encryptionType(key.etype).encrypt(key.value, KeyUsage.AS_REQ_PA_ENC_TIMESTAMP, encodePaEncTsEnc(now()));
  const encTimestamp: PaData = { type: PaType.ENC_TIMESTAMP, value: encodeEncryptedDataDer({ etype: key.etype, cipher: timestamp }) };
  const rep = decodeReply(await kdc.send(encodeKdcReq(MsgType.AS_REQ, [encTimestamp, pacRequest], body)), MsgType.AS_REP, who, now());
  return credentialFrom(rep, key, KeyUsage.AS_REP_ENC_PART, nonce, who);
}

/** A service principal name such as `cifs/DC1.edu.test` as a PrincipalName. */
export function servicePrincipal(spn: string): PrincipalName {
  return { type: NameType.SRV_INST, names: spn.split('/') };
}

/** An Authenticator sealed with a session key under a key usage: the proof of an AP-REQ. */
export function sealAuthenticator(
  cred: Credential,
  usage: number,
  extra: { cksum?: { type: number; value: Buffer }; subkey?: EncryptionKey; seqNumber?: number },
  now: Date,
): { etype: number; cipher: Buffer } {
  const plain = encodeAuthenticator({ crealm: cred.crealm, cname: cred.client, ctime: now, cusec: (now.getTime() % 1000) * 1000, ...extra });
  return { etype: cred.key.etype, cipher: encryptionType(cred.key.etype).encrypt(cred.key.value, usage, plain) };
}

/** What S4U requests add to a TGS request (MS-SFU 3.1.5.1). */
interface TgsExtras {
  options?: number;
  /** An end time before the TGT's (a shorter-lived service ticket). */
  till?: Date;
  padata?: PaData[];
  additionalTickets?: Ticket[];
}

/** TGS exchange: a ticket for `sname` with the TGT `tgt`. */
export async function tgsRequest(kdc: KdcChannel, tgt: Credential, sname: PrincipalName, now: Date, extras: TgsExtras = {}): Promise<Credential> {
  const who = `ticket for ${principalText(sname)}`;
  const nonce = randomInt(1, 0x7fffffff);
  const body = encodeKdcReqBody({
    options: KdcOption.CANONICALIZE | (tgt.flags & KdcOption.FORWARDABLE) | (extras.options ?? 0),
    realm: kdc.realm,
    sname,
    till: extras.till && extras.till < tgt.endtime ? extras.till : tgt.endtime,
    nonce,
    etypes: SUPPORTED_ETYPES,
    ...(extras.additionalTickets ? { additionalTickets: extras.additionalTickets } : {}),
  });
  const type = encryptionType(tgt.key.etype);
  const cksum = { type: type.checksumType, value: type.checksum(tgt.key.value, KeyUsage.TGS_REQ_AUTH_CKSUM, body) };
  const authenticator = sealAuthenticator(tgt, KeyUsage.TGS_REQ_AUTHENTICATOR, { cksum }, now);
  const apReq: PaData = { type: PaType.TGS_REQ, value: encodeApReq(0, tgt.ticket, authenticator) };
  const rep = decodeReply(await kdc.send(encodeKdcReq(MsgType.TGS_REQ, [apReq, ...(extras.padata ?? [])], body)), MsgType.TGS_REP, who, now);
  return credentialFrom(rep, tgt.key, KeyUsage.TGS_REP_ENC_PART_SESSION_KEY, nonce, who);
}

/** TGS exchange: a ticket for the service principal `spn` (e.g. cifs/DC1.edu.test), ending at `till` at the latest. */
export function tgsExchange(kdc: KdcChannel, tgt: Credential, spn: string, now: Date = new Date(), till?: Date): Promise<Credential> {
  return tgsRequest(kdc, tgt, servicePrincipal(spn), now, till ? { till } : {});
}
