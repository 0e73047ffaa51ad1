/**
 * The Kerberos 5 messages a client sends and reads (RFC 4120 5, MS-KILE 2.2 for PA-PAC-REQUEST), and those an
 * acceptor reads and answers (AP-REQ, the ticket's and the authenticator's encrypted parts, AP-REP), each as a plain
 * object with an encoder or a decoder. Decoders throw KerberosProtocolError on anything malformed.
 */
import { KerberosProtocolError } from './errors.js';
import { Fields, app, bool, decode, encode, fields, flagBit, flags, int, octets, raw, seq, sequenceOf, str, stringOf, time, unApp, type Block } from './der.js';
import type { EncryptionKey } from './crypto.js';

export const MsgType = { AS_REQ: 10, AS_REP: 11, TGS_REQ: 12, TGS_REP: 13, AP_REQ: 14, AP_REP: 15, KRB_ERROR: 30 } as const;

export const NameType = { PRINCIPAL: 1, SRV_INST: 2, SRV_HST: 3, ENTERPRISE: 10 } as const;

/** Pre-authentication data types (RFC 4120 7.5.2, MS-KILE 2.2, MS-SFU 2.2). */
export const PaType = { TGS_REQ: 1, ENC_TIMESTAMP: 2, ETYPE_INFO2: 19, PAC_REQUEST: 128, FOR_USER: 129 } as const;

/** Key usage numbers (RFC 4120 7.5.1). */
export const KeyUsage = {
  AS_REQ_PA_ENC_TIMESTAMP: 1,
  /** A ticket's enc-part, under the service's long-term key. */
  TICKET: 2,
  AS_REP_ENC_PART: 3,
  TGS_REQ_AUTH_CKSUM: 6,
  TGS_REQ_AUTHENTICATOR: 7,
  /** MS-SFU 2.2.1: the PA-FOR-USER checksum. */
  PA_FOR_USER_CKSUM: 17,
  TGS_REP_ENC_PART_SESSION_KEY: 8,
  TGS_REP_ENC_PART_SUBKEY: 9,
  AP_REQ_AUTHENTICATOR: 11,
  AP_REP_ENC_PART: 12,
} as const;

export const KdcOption = {
  FORWARDABLE: flagBit(1),
  RENEWABLE: flagBit(8),
  CNAME_IN_ADDL_TKT: flagBit(14),
  CANONICALIZE: flagBit(15),
  RENEWABLE_OK: flagBit(27),
  RENEW: flagBit(30),
} as const;

export const ApOption = { MUTUAL_REQUIRED: flagBit(2) } as const;

/** TicketFlags an acceptor checks (RFC 4120 5.3). */
export const TicketFlag = { FORWARDABLE: flagBit(1), INVALID: flagBit(7) } as const;

/** KRB-ERROR codes the client acts on or explains (RFC 4120 7.5.9, MS-KILE 3.1.5.x). */
export const KdcErrorCode = {
  C_PRINCIPAL_UNKNOWN: 6,
  S_PRINCIPAL_UNKNOWN: 7,
  CLIENT_REVOKED: 18,
  KEY_EXPIRED: 23,
  PREAUTH_FAILED: 24,
  PREAUTH_REQUIRED: 25,
  BADOPTION: 13,
  ETYPE_NOSUPP: 14,
  TKT_EXPIRED: 32,
  SKEW: 37,
  MODIFIED: 41,
} as const;

export interface PrincipalName {
  type: number;
  names: string[];
}

interface EncryptedData {
  etype: number;
  kvno?: number;
  cipher: Buffer;
}

export interface PaData {
  type: number;
  value: Buffer;
}

/** A ticket as the KDC issued it: `der` is passed on unchanged in AP-REQs and TGS-REQs. */
export interface Ticket {
  realm: string;
  sname: PrincipalName;
  encPart: EncryptedData;
  der: Buffer;
}

export function principalText(p: PrincipalName, realm?: string): string {
  return p.names.join('/') + (realm ? `@${realm}` : '');
}

// ---- shared parts ----

const encodePrincipal = (p: PrincipalName): Block => fields([0, int(p.type)], [1, seq(p.names.map(str))]);

function parsePrincipal(b: Block, what: string): PrincipalName {
  const f = new Fields(b, what);
  const names = f.list(1).map((n, i) => stringOf(n, `${what} name ${i}`));
  return { type: f.int(0), names };
}

const encodeEncryptedData = (e: EncryptedData): Block =>
  fields([0, int(e.etype)], [1, e.kvno === undefined ? undefined : int(e.kvno)], [2, octets(e.cipher)]);

/** The DER of an EncryptedData, as PA-ENC-TIMESTAMP carries it. */
export function encodeEncryptedDataDer(e: EncryptedData): Buffer {
  return encode(encodeEncryptedData(e));
}

function parseEncryptedData(b: Block, what: string): EncryptedData {
  const f = new Fields(b, what);
  return { etype: f.int(0), ...(f.has(1) ? { kvno: f.int(1) } : {}), cipher: f.octets(2) };
}

const encodeKey = (k: EncryptionKey): Block => fields([0, int(k.etype)], [1, octets(k.value)]);

function parseKey(b: Block, what: string): EncryptionKey {
  const f = new Fields(b, what);
  return { etype: f.int(0), value: f.octets(1) };
}

const encodePaData = (p: PaData): Block => fields([1, int(p.type)], [2, octets(p.value)]);

function parsePaList(blocks: Block[], what: string): PaData[] {
  return blocks.map((b, i) => {
    const f = new Fields(b, `${what} ${i}`);
    return { type: f.int(1), value: f.octets(2) };
  });
}

function parseTicket(b: Block, what: string): Ticket {
  const f = new Fields(unApp(b, 1, what), what);
  if (f.int(0) !== 5) throw new KerberosProtocolError(`${what}: tkt-vno is not 5`);
  return { realm: f.str(1), sname: parsePrincipal(f.block(2), `${what} sname`), encPart: parseEncryptedData(f.block(3), `${what} enc-part`), der: encode(b) };
}

// ---- KDC requests ----

interface KdcReqBody {
  options: number;
  cname?: PrincipalName;
  realm: string;
  sname: PrincipalName;
  till: Date;
  rtime?: Date;
  nonce: number;
  etypes: readonly number[];
  additionalTickets?: Ticket[];
}

/** The DER of KDC-REQ-BODY: the TGS-REQ authenticator's checksum covers exactly these bytes. */
export function encodeKdcReqBody(b: KdcReqBody): Buffer {
  return encode(
    fields(
      [0, flags(b.options)],
      [1, b.cname && encodePrincipal(b.cname)],
      [2, str(b.realm)],
      [3, encodePrincipal(b.sname)],
      [5, time(b.till)],
      [6, b.rtime && time(b.rtime)],
      [7, int(b.nonce)],
      [8, seq(b.etypes.map(int))],
      [11, b.additionalTickets && seq(b.additionalTickets.map((t) => raw(t.der)))],
    ),
  );
}

export function encodeKdcReq(msgType: typeof MsgType.AS_REQ | typeof MsgType.TGS_REQ, padata: PaData[], body: Buffer): Buffer {
  const req = fields([1, int(5)], [2, int(msgType)], [3, padata.length ? seq(padata.map(encodePaData)) : undefined], [4, raw(body)]);
  return encode(app(msgType, req));
}

/** PA-ENC-TS-ENC: the client's time, encrypted with its long-term key to prove it knows the key. */
export function encodePaEncTsEnc(now: Date): Buffer {
  return encode(fields([0, time(now)], [1, int((now.getTime() % 1000) * 1000)]));
}

/** MS-SFU PA-FOR-USER: the user a service asks a ticket to itself for (S4U2Self), with its checksum. */
export function encodePaForUser(user: PrincipalName, realm: string, cksum: Checksum, authPackage: string): Buffer {
  return encode(fields([0, encodePrincipal(user)], [1, str(realm)], [2, fields([0, int(cksum.type)], [1, octets(cksum.value)])], [3, str(authPackage)]));
}

/** MS-KILE PA-PAC-REQUEST: ask for the PAC the file server needs to build the user's token. */
export function encodePaPacRequest(include: boolean): Buffer {
  return encode(fields([0, bool(include)]));
}

// ---- KDC replies ----

export interface KdcRep {
  msgType: number;
  padata: PaData[];
  crealm: string;
  cname: PrincipalName;
  ticket: Ticket;
  encPart: EncryptedData;
}

export interface KrbError {
  errorCode: number;
  stime: Date;
  realm: string;
  sname: PrincipalName;
  eText?: string;
  eData?: Buffer;
}

type KdcReply = { kind: 'rep'; rep: KdcRep } | { kind: 'error'; error: KrbError };

function parseKrbErrorBlock(b: Block): KrbError {
  const f = new Fields(unApp(b, MsgType.KRB_ERROR, 'KRB-ERROR'), 'KRB-ERROR');
  const stime = new Date(f.time(4).getTime() + Math.floor(f.int(5) / 1000));
  return {
    errorCode: f.int(6),
    stime,
    realm: f.str(9),
    sname: parsePrincipal(f.block(10), 'KRB-ERROR sname'),
    ...(f.has(11) ? { eText: f.str(11) } : {}),
    ...(f.has(12) ? { eData: f.octets(12) } : {}),
  };
}

/** An AS-REP, a TGS-REP or a KRB-ERROR, whichever the KDC sent. */
export function parseKdcReply(buf: Buffer): KdcReply {
  const b = decode(buf, 'KDC reply');
  const tag = b.idBlock.tagNumber;
  if (tag === MsgType.KRB_ERROR) return { kind: 'error', error: parseKrbErrorBlock(b) };
  if (tag !== MsgType.AS_REP && tag !== MsgType.TGS_REP) throw new KerberosProtocolError(`KDC reply: unexpected message [APPLICATION ${tag}]`);
  const f = new Fields(unApp(b, tag, 'KDC-REP'), 'KDC-REP');
  if (f.int(1) !== tag) throw new KerberosProtocolError('KDC-REP: msg-type differs from its tag');
  return {
    kind: 'rep',
    rep: {
      msgType: tag,
      padata: f.has(2) ? parsePaList(f.list(2), 'KDC-REP padata') : [],
      crealm: f.str(3),
      cname: parsePrincipal(f.block(4), 'KDC-REP cname'),
      ticket: parseTicket(f.block(5), 'KDC-REP ticket'),
      encPart: parseEncryptedData(f.block(6), 'KDC-REP enc-part'),
    },
  };
}

/**
 * When a ticket became valid: its starttime, or its authtime where the KDC sent none (RFC 4120 5.3). A service
 * ticket's authtime is that of the TGT it was had with.
 */
export function validFrom(part: { authtime: Date; starttime?: Date }): Date {
  return part.starttime ?? part.authtime;
}

interface EncKdcRepPart {
  key: EncryptionKey;
  nonce: number;
  flags: number;
  authtime: Date;
  starttime?: Date;
  endtime: Date;
  renewTill?: Date;
  srealm: string;
  sname: PrincipalName;
}

/** The decrypted enc-part of a KDC-REP; some KDCs tag an AS reply's part as EncTGSRepPart, so both are read. */
export function parseEncKdcRepPart(buf: Buffer): EncKdcRepPart {
  const b = decode(buf, 'EncKDCRepPart');
  const tag = b.idBlock.tagNumber === 25 ? 25 : 26;
  const f = new Fields(unApp(b, tag, 'EncKDCRepPart'), 'EncKDCRepPart');
  return {
    key: parseKey(f.block(0), 'EncKDCRepPart key'),
    nonce: f.int(2),
    flags: f.flags(4),
    authtime: f.time(5),
    ...(f.has(6) ? { starttime: f.time(6) } : {}),
    endtime: f.time(7),
    ...(f.has(8) ? { renewTill: f.time(8) } : {}),
    srealm: f.str(9),
    sname: parsePrincipal(f.block(10), 'EncKDCRepPart sname'),
  };
}

/** METHOD-DATA, the e-data of KDC_ERR_PREAUTH_REQUIRED: what pre-authentication the KDC accepts. */
export function parseMethodData(buf: Buffer): PaData[] {
  const b = decode(buf, 'METHOD-DATA');
  return parsePaList(sequenceOf(b, 'METHOD-DATA'), 'METHOD-DATA');
}

interface EtypeInfo2Entry {
  etype: number;
  salt?: string;
  s2kparams?: Buffer;
}

/** PA-ETYPE-INFO2: for each etype of the client's keys, the salt and string-to-key parameters. */
export function parseEtypeInfo2(buf: Buffer): EtypeInfo2Entry[] {
  const b = decode(buf, 'ETYPE-INFO2');
  return sequenceOf(b, 'ETYPE-INFO2').map((e, i) => {
    const f = new Fields(e, `ETYPE-INFO2 entry ${i}`);
    return { etype: f.int(0), ...(f.has(1) ? { salt: f.str(1) } : {}), ...(f.has(2) ? { s2kparams: f.octets(2) } : {}) };
  });
}

// ---- AP exchange ----

export interface Checksum {
  type: number;
  value: Buffer;
}

interface Authenticator {
  crealm: string;
  cname: PrincipalName;
  cksum?: Checksum;
  ctime: Date;
  cusec: number;
  subkey?: EncryptionKey;
  seqNumber?: number;
}

export function encodeAuthenticator(a: Authenticator): Buffer {
  return encode(
    app(
      2,
      fields(
        [0, int(5)],
        [1, str(a.crealm)],
        [2, encodePrincipal(a.cname)],
        [3, a.cksum && fields([0, int(a.cksum.type)], [1, octets(a.cksum.value)])],
        [4, int(a.cusec)],
        [5, time(a.ctime)],
        [6, a.subkey && encodeKey(a.subkey)],
        [7, a.seqNumber === undefined ? undefined : int(a.seqNumber)],
      ),
    ),
  );
}

/** When an authenticator was made, in ms: ctime has whole seconds, cusec the microseconds within. */
export function authenticatorTime(a: { ctime: Date; cusec: number }): number {
  return a.ctime.getTime() + Math.floor(a.cusec / 1000);
}

export function parseAuthenticator(buf: Buffer): Authenticator {
  const f = new Fields(unApp(decode(buf, 'Authenticator'), 2, 'Authenticator'), 'Authenticator');
  if (f.int(0) !== 5) throw new KerberosProtocolError('Authenticator: authenticator-vno is not 5');
  const cusec = f.int(4);
  if (cusec < 0 || cusec > 999_999) throw new KerberosProtocolError('Authenticator: cusec out of range');
  const cksum = f.has(3) ? new Fields(f.block(3), 'Authenticator cksum') : undefined;
  return {
    crealm: f.str(1),
    cname: parsePrincipal(f.block(2), 'Authenticator cname'),
    ...(cksum ? { cksum: { type: cksum.int(0), value: cksum.octets(1) } } : {}),
    ctime: f.time(5),
    cusec,
    ...(f.has(6) ? { subkey: parseKey(f.block(6), 'Authenticator subkey') } : {}),
    ...(f.has(7) ? { seqNumber: f.int(7) } : {}),
  };
}

export function encodeApReq(options: number, ticket: Ticket, authenticator: EncryptedData): Buffer {
  return encode(
    app(MsgType.AP_REQ, fields([0, int(5)], [1, int(MsgType.AP_REQ)], [2, flags(options)], [3, raw(ticket.der)], [4, encodeEncryptedData(authenticator)])),
  );
}

interface ApReq {
  options: number;
  ticket: Ticket;
  authenticator: EncryptedData;
}

export function parseApReq(buf: Buffer): ApReq {
  const f = new Fields(unApp(decode(buf, 'AP-REQ'), MsgType.AP_REQ, 'AP-REQ'), 'AP-REQ');
  if (f.int(0) !== 5 || f.int(1) !== MsgType.AP_REQ) throw new KerberosProtocolError('AP-REQ: not a Kerberos 5 AP-REQ');
  return { options: f.flags(2), ticket: parseTicket(f.block(3), 'AP-REQ ticket'), authenticator: parseEncryptedData(f.block(4), 'AP-REQ authenticator') };
}

/** One element of AuthorizationData (RFC 4120 5.2.6): its ad-type and the ad-data as sent. */
export interface AuthorizationDataEntry {
  type: number;
  data: Buffer;
}

/** AuthorizationData, as a ticket carries it and as AD-IF-RELEVANT (ad-type 1) wraps it in its ad-data. */
export function parseAuthorizationData(buf: Buffer, what = 'AuthorizationData'): AuthorizationDataEntry[] {
  return parseAuthorizationDataBlocks(sequenceOf(decode(buf, what), what), what);
}

function parseAuthorizationDataBlocks(blocks: Block[], what: string): AuthorizationDataEntry[] {
  return blocks.map((b, i) => {
    const f = new Fields(b, `${what} ${i}`);
    return { type: f.int(0), data: f.octets(1) };
  });
}

/** The decrypted enc-part of a ticket (RFC 4120 5.3); its authorization-data is read by pac.ts. */
export interface EncTicketPart {
  flags: number;
  key: EncryptionKey;
  crealm: string;
  cname: PrincipalName;
  authtime: Date;
  starttime?: Date;
  endtime: Date;
  renewTill?: Date;
  /** The KDC's authorization-data, in the order sent; empty when the ticket has none. */
  authorizationData: AuthorizationDataEntry[];
}

export function parseEncTicketPart(buf: Buffer): EncTicketPart {
  const f = new Fields(unApp(decode(buf, 'EncTicketPart'), 3, 'EncTicketPart'), 'EncTicketPart');
  return {
    flags: f.flags(0),
    key: parseKey(f.block(1), 'EncTicketPart key'),
    crealm: f.str(2),
    cname: parsePrincipal(f.block(3), 'EncTicketPart cname'),
    authtime: f.time(5),
    ...(f.has(6) ? { starttime: f.time(6) } : {}),
    endtime: f.time(7),
    ...(f.has(8) ? { renewTill: f.time(8) } : {}),
    authorizationData: f.has(10) ? parseAuthorizationDataBlocks(f.list(10), 'EncTicketPart authorization-data') : [],
  };
}

export function encodeApRep(encPart: EncryptedData): Buffer {
  return encode(app(MsgType.AP_REP, fields([0, int(5)], [1, int(MsgType.AP_REP)], [2, encodeEncryptedData(encPart)])));
}

/** AP-REP, or the KRB-ERROR a server sends instead of it. */
export function parseApRep(buf: Buffer): { kind: 'rep'; encPart: EncryptedData } | { kind: 'error'; error: KrbError } {
  const b = decode(buf, 'AP-REP');
  if (b.idBlock.tagNumber === MsgType.KRB_ERROR) return { kind: 'error', error: parseKrbErrorBlock(b) };
  const f = new Fields(unApp(b, MsgType.AP_REP, 'AP-REP'), 'AP-REP');
  if (f.int(1) !== MsgType.AP_REP) throw new KerberosProtocolError('AP-REP: wrong msg-type');
  return { kind: 'rep', encPart: parseEncryptedData(f.block(2), 'AP-REP enc-part') };
}

interface EncApRepPart {
  ctime: Date;
  cusec: number;
  subkey?: EncryptionKey;
  seqNumber?: number;
}

export function encodeEncApRepPart(p: EncApRepPart): Buffer {
  return encode(
    app(27, fields([0, time(p.ctime)], [1, int(p.cusec)], [2, p.subkey && encodeKey(p.subkey)], [3, p.seqNumber === undefined ? undefined : int(p.seqNumber)])),
  );
}

export function parseEncApRepPart(buf: Buffer): EncApRepPart {
  const f = new Fields(unApp(decode(buf, 'EncAPRepPart'), 27, 'EncAPRepPart'), 'EncAPRepPart');
  return {
    ctime: f.time(0),
    cusec: f.int(1),
    ...(f.has(2) ? { subkey: parseKey(f.block(2), 'EncAPRepPart subkey') } : {}),
    ...(f.has(3) ? { seqNumber: f.int(3) } : {}),
  };
}
