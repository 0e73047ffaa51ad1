/**
 * The PAC (Privilege Attribute Certificate, MS-PAC) of a service ticket: what the KDC says of the client besides its
 * name, above all its SID. The client's name in a ticket is a spelling the KDC resolved once; the SID is the
 * account, whatever it is called now or whatever another account's implicit UPN collides with. The PAC travels in
 * the ticket's authorization-data as AD-WIN2K-PAC (ad-type 128) inside AD-IF-RELEVANT (ad-type 1) (RFC 4120 5.2.6,
 * MS-PAC 2.3); its buffers (PACTYPE, MS-PAC 2.3–2.4) are read here: the logon information (an NDR
 * KERB_VALIDATION_INFO, 2.5), the client information (2.7) and the server signature (2.8).
 *
 * The server signature is checked with the service key the ticket was opened with. The KDC signature beside it
 * is keyed with the krbtgt account's key, which no service holds, so it is not checked here: the ticket's own
 * encryption already proves the KDC issued the ticket, and the server signature that its PAC is the one issued.
 *
 * Every length, count and offset is checked against the bytes before it is used: a hostile ticket (one sealed
 * with a stolen service key, or a bug of some KDC) ends in a KerberosError PAC_INVALID, never a crash or a large
 * allocation.
 */
import { timingSafeEqual } from 'node:crypto';
import { encryptionType, type EncryptionKey } from './crypto.js';
import { KerberosError } from './errors.js';
import { parseAuthorizationData, principalText, type AuthorizationDataEntry, type EncTicketPart } from './messages.js';
import { inProtocol, readSid } from '../windows-security/sid.js';

/** Authorization-data types (RFC 4120 7.5.4, MS-KILE 2.2.5). */
const AdType = { IF_RELEVANT: 1, WIN2K_PAC: 128 } as const;

/** PAC_INFO_BUFFER ulType values read here (MS-PAC 2.4). */
const PacBufferType = { LOGON_INFO: 1, SERVER_CHECKSUM: 6, PRIVSVR_CHECKSUM: 7, CLIENT_INFO: 10 } as const;

/** MS-PAC 2.8.1: the server signature is a keyed checksum with key usage 17 (KERB_NON_KERB_CKSUM_SALT). */
const SERVER_CHECKSUM_USAGE = 17;

/** A PAC holds about ten buffers; more is no PAC of a KDC. */
const MAX_BUFFERS = 64;

/** What a ticket's PAC says of its client. */
export interface PacIdentity {
  /** The client's SID: its logon domain's SID and its RID (KERB_VALIDATION_INFO LogonDomainId, UserId). */
  userSid: string;
  /**
   * The SIDs of its groups as the KDC saw them when it issued the ticket: the logon domain's groups (GroupIds),
   * ExtraSids and the resource groups, in that order.
   */
  groupSids: string[];
  /** The account name (EffectiveName): the sAMAccountName when the ticket was issued. */
  account: string;
}

/** One PAC_INFO_BUFFER: its type and where its bytes are in the PAC. */
interface PacBuffer {
  type: number;
  offset: number;
  size: number;
}

const invalid = (message: string): KerberosError => new KerberosError('PAC_INVALID', `the ticket's PAC: ${message}`);

/**
 * The client's identity from the PAC of a ticket this service opened with `serviceKey`: refused (PAC_INVALID) when
 * the ticket has no PAC, the PAC does not parse, its server signature does not verify with that key, or its client
 * information names another client or logon time than the ticket.
 */
export function ticketPacIdentity(part: EncTicketPart, serviceKey: EncryptionKey): PacIdentity {
  const pac = pacOf(part.authorizationData);
  const buffers = pacBuffers(pac);
  verifyServerSignature(pac, buffers, serviceKey);
  checkClientInfo(pac, buffers, part);
  return logonInfo(bufferBytes(pac, only(buffers, PacBufferType.LOGON_INFO, 'PAC_LOGON_INFO')));
}

/** The one AD-WIN2K-PAC a ticket carries, inside AD-IF-RELEVANT. */
function pacOf(authorizationData: readonly AuthorizationDataEntry[]): Buffer {
  const pacs: Buffer[] = [];
  for (const entry of authorizationData) {
    if (entry.type !== AdType.IF_RELEVANT) continue;
    for (const inner of parseAuthorizationData(entry.data, 'AD-IF-RELEVANT')) if (inner.type === AdType.WIN2K_PAC) pacs.push(inner.data);
  }
  if (pacs.length === 0) throw invalid('the ticket carries none (AD-WIN2K-PAC in AD-IF-RELEVANT): the KDC issued it without the account\'s PAC');
  if (pacs.length > 1) throw invalid(`the ticket carries ${pacs.length} of them, and only one may be`);
  return pacs[0]!;
}

/** PACTYPE (MS-PAC 2.3): cBuffers, Version 0, then cBuffers PAC_INFO_BUFFERs of 16 bytes; each buffer within the PAC. */
function pacBuffers(pac: Buffer): PacBuffer[] {
  if (pac.length < 8) throw invalid(`${pac.length} bytes are too short for its header`);
  const count = pac.readUInt32LE(0);
  const version = pac.readUInt32LE(4);
  if (version !== 0) throw invalid(`version ${version}, not 0`);
  if (count > MAX_BUFFERS || 8 + count * 16 > pac.length) throw invalid(`${count} buffers do not fit its ${pac.length} bytes`);
  const buffers: PacBuffer[] = [];
  for (let i = 0; i < count; i++) {
    const at = 8 + i * 16;
    const type = pac.readUInt32LE(at);
    const size = pac.readUInt32LE(at + 4);
    const offset = Number(pac.readBigUInt64LE(at + 8));
    if (offset % 8 !== 0 || offset < 8 + count * 16 || offset > pac.length || size > pac.length - offset) {
      throw invalid(`buffer ${i} (type ${type}, ${size} bytes at ${offset}) lies outside its ${pac.length} bytes or is misaligned`);
    }
    buffers.push({ type, offset, size });
  }
  return buffers;
}

/** The one buffer of `type`: MS-PAC allows no second one of the types read here. */
function only(buffers: readonly PacBuffer[], type: number, name: string): PacBuffer {
  const found = buffers.filter((b) => b.type === type);
  if (found.length !== 1) throw invalid(found.length === 0 ? `no ${name} buffer` : `${found.length} ${name} buffers`);
  return found[0]!;
}

const bufferBytes = (pac: Buffer, b: PacBuffer): Buffer => pac.subarray(b.offset, b.offset + b.size);

/** PAC_SIGNATURE_DATA (MS-PAC 2.8): SignatureType, then the signature, whose length the type fixes. */
function signatureOf(pac: Buffer, b: PacBuffer, name: string): { type: number; at: number; length: number } {
  if (b.size < 4) throw invalid(`${name} is ${b.size} bytes`);
  const type = pac.readInt32LE(b.offset);
  const n = signatureLength(type);
  if (b.size < 4 + n) throw invalid(`${name} of type ${type} is ${b.size} bytes`);
  return { type, at: b.offset + 4, length: n };
}

/** The lengths of the signature types a KDC signs a PAC with (RFC 3961 and RFC 8009 checksums, MS-PAC 2.8). */
function signatureLength(type: number): number {
  if (type === 15 || type === 16) return 12; // hmac-sha1-96-aes128 / -aes256
  if (type === -138) return 16; // KERB_CHECKSUM_HMAC_MD5 (RC4 keys)
  if (type === 19) return 16; // hmac-sha256-128-aes128
  if (type === 20) return 24; // hmac-sha384-192-aes256
  throw invalid(`a signature has type ${type}, which this service does not know`);
}

/**
 * MS-PAC 2.8.1: the server signature is the keyed checksum of the service key's type over the whole PAC with the
 * signature bytes of both the server and the KDC signature zeroed. The service accepts AES keys only, so the type
 * must be the AES checksum of the key's encryption type; anything else is refused.
 */
function verifyServerSignature(pac: Buffer, buffers: readonly PacBuffer[], serviceKey: EncryptionKey): void {
  const type = encryptionType(serviceKey.etype);
  const server = signatureOf(pac, only(buffers, PacBufferType.SERVER_CHECKSUM, 'PAC_SERVER_CHECKSUM'), 'PAC_SERVER_CHECKSUM');
  if (server.type !== type.checksumType) {
    throw invalid(`the server signature has type ${server.type}, and the service key (${type.name}) signs with type ${type.checksumType}`);
  }
  const kdc = signatureOf(pac, only(buffers, PacBufferType.PRIVSVR_CHECKSUM, 'PAC_PRIVSVR_CHECKSUM'), 'PAC_PRIVSVR_CHECKSUM');
  const signed = Buffer.from(pac);
  signed.fill(0, server.at, server.at + server.length);
  signed.fill(0, kdc.at, kdc.at + kdc.length);
  const expected = type.checksum(serviceKey.value, SERVER_CHECKSUM_USAGE, signed);
  const got = pac.subarray(server.at, server.at + server.length);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) throw invalid('the server signature does not verify with the service key (the PAC was altered)');
}

/**
 * PAC_CLIENT_INFO (MS-PAC 2.7): ClientId (a FILETIME), NameLength in bytes, Name in UTF-16LE, which must be the
 * ticket's client and logon time (authtime): a PAC copied into another ticket is not.
 */
function checkClientInfo(pac: Buffer, buffers: readonly PacBuffer[], part: EncTicketPart): void {
  const info = bufferBytes(pac, only(buffers, PacBufferType.CLIENT_INFO, 'PAC_CLIENT_INFO'));
  if (info.length < 10) throw invalid(`PAC_CLIENT_INFO is ${info.length} bytes`);
  const clientId = filetimeMs(info.readBigUInt64LE(0));
  const nameLength = info.readUInt16LE(8);
  if (nameLength % 2 !== 0 || 10 + nameLength > info.length) throw invalid(`PAC_CLIENT_INFO's name of ${nameLength} bytes does not fit its ${info.length}`);
  const name = info.subarray(10, 10 + nameLength).toString('utf16le');
  const client = principalText(part.cname);
  if (name.toLowerCase() !== client.toLowerCase()) throw invalid(`PAC_CLIENT_INFO names ${name}, the ticket ${client}`);
  if (clientId !== part.authtime.getTime()) {
    throw invalid(`PAC_CLIENT_INFO's time ${new Date(clientId).toISOString()} is not the ticket's authtime ${part.authtime.toISOString()}`);
  }
}

/** A FILETIME (100 ns since 1601-01-01) in ms since the epoch. */
function filetimeMs(ticks: bigint): number {
  return Number(ticks / 10_000n) - 11_644_473_600_000;
}

/**
 * PAC_LOGON_INFO (MS-PAC 2.5): a KERB_VALIDATION_INFO in NDR type serialization version 1 (MS-RPCE 2.2.6): a common
 * header (version 1, little-endian, 8 bytes), a private header (the object's length), the top-level pointer, the
 * structure's fixed part, then what its pointers point to, in the order of the pointers.
 */
function logonInfo(buf: Buffer): PacIdentity {
  if (buf.length < 16) throw invalid(`PAC_LOGON_INFO is ${buf.length} bytes`);
  if (buf[0] !== 1 || buf[1] !== 0x10 || buf.readUInt16LE(2) !== 8) throw invalid('PAC_LOGON_INFO is not little-endian NDR type serialization version 1');
  const length = buf.readUInt32LE(8);
  if (length > buf.length - 16) throw invalid(`PAC_LOGON_INFO's object of ${length} bytes exceeds its ${buf.length - 16}`);
  const r = new NdrReader(buf.subarray(16, 16 + length));
  if (r.u32() === 0) throw invalid('PAC_LOGON_INFO holds no KERB_VALIDATION_INFO');
  r.skip(6 * 8); // LogonTime, LogoffTime, KickOffTime, PasswordLastSet, PasswordCanChange, PasswordMustChange
  const effectiveName = r.unicodeString();
  const others = [r.unicodeString(), r.unicodeString(), r.unicodeString(), r.unicodeString(), r.unicodeString()]; // FullName … HomeDirectoryDrive
  r.skip(4); // LogonCount, BadPasswordCount
  const userId = r.u32();
  r.skip(4); // PrimaryGroupId: the primary group is among GroupIds too
  const groups = r.arrayHeader();
  r.skip(4 + 16); // UserFlags, UserSessionKey
  const logonServer = r.unicodeString();
  const logonDomainName = r.unicodeString();
  const logonDomainId = r.u32();
  r.skip(8 + 4 + 4 + 8 + 8 + 4 + 4); // Reserved1, UserAccountControl, SubAuthStatus, the last logons, FailedILogonCount, Reserved3
  const extraSids = r.arrayHeader();
  const resourceDomainId = r.u32();
  const resourceGroups = r.arrayHeader();

  const account = r.deferredString(effectiveName);
  for (const s of others) r.deferredString(s);
  const groupRids = r.deferredRids(groups);
  r.deferredString(logonServer);
  r.deferredString(logonDomainName);
  if (logonDomainId === 0) throw invalid('PAC_LOGON_INFO names no logon domain (LogonDomainId)');
  const domainSid = r.sid();
  const extra = r.deferredExtraSids(extraSids);
  const resourceDomain = resourceDomainId === 0 ? null : r.sid();
  const resourceRids = r.deferredRids(resourceGroups);
  if (resourceRids.length > 0 && resourceDomain === null) throw invalid('PAC_LOGON_INFO has resource groups without their domain');
  if (account === '') throw invalid('PAC_LOGON_INFO names no account (EffectiveName)');
  return {
    userSid: `${domainSid}-${userId}`,
    groupSids: [...groupRids.map((rid) => `${domainSid}-${rid}`), ...extra, ...resourceRids.map((rid) => `${resourceDomain}-${rid}`)],
    account,
  };
}

/** RPC_UNICODE_STRING's fixed part (MS-DTYP 2.3.10): Length and MaximumLength in bytes, and the buffer's pointer. */
interface UnicodeStringHeader {
  length: number;
  pointer: number;
}

/** A counted array's fixed part: the element count and the pointer to the elements. */
interface ArrayHeader {
  count: number;
  pointer: number;
}

/** Little-endian NDR (MS-RPCE 2.2.5 on C706 14) as KERB_VALIDATION_INFO needs it: primitives aligned to their size. */
class NdrReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}

  private take(n: number, align: number): number {
    this.at = Math.ceil(this.at / align) * align;
    if (this.at + n > this.buf.length) throw invalid(`PAC_LOGON_INFO ends at byte ${this.buf.length}, before the ${n} bytes it needs at ${this.at}`);
    const start = this.at;
    this.at += n;
    return start;
  }

  skip(n: number): void {
    this.take(n, 4);
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4, 4));
  }

  private u16(): number {
    return this.buf.readUInt16LE(this.take(2, 2));
  }

  unicodeString(): UnicodeStringHeader {
    const length = this.u16();
    const maximumLength = this.u16();
    const pointer = this.u32();
    if (length % 2 !== 0 || length > maximumLength) throw invalid(`PAC_LOGON_INFO has a string of ${length} bytes in ${maximumLength}`);
    return { length, pointer };
  }

  arrayHeader(): ArrayHeader {
    const count = this.u32();
    const pointer = this.u32();
    if (pointer === 0 && count !== 0) throw invalid(`PAC_LOGON_INFO counts ${count} elements of an array it does not send`);
    return { count, pointer };
  }

  /** The conformant count before an array of `count` elements of `size` bytes, checked to fit the rest. */
  private conformance(count: number, size: number): void {
    const max = this.u32();
    if (max !== count) throw invalid(`PAC_LOGON_INFO sends ${max} elements of an array of ${count}`);
    if (count * size > this.buf.length - this.at) throw invalid(`PAC_LOGON_INFO's array of ${count} elements does not fit`);
  }

  /** A string's characters (a conformant varying array of UTF-16 code units); '' for a null pointer. */
  deferredString(header: UnicodeStringHeader): string {
    if (header.pointer === 0) return '';
    const chars = header.length / 2;
    const max = this.u32();
    const offset = this.u32();
    const actual = this.u32();
    if (offset !== 0 || actual !== chars || actual > max) throw invalid(`PAC_LOGON_INFO has a string of ${actual} characters where ${chars} were announced`);
    const start = this.take(header.length, 2);
    return this.buf.toString('utf16le', start, start + header.length);
  }

  /**
   * The first fields of a counted array's elements of two ULONGs each (the second, Attributes, is not needed):
   * GROUP_MEMBERSHIP's RelativeId (MS-PAC 2.2.2), KERB_SID_AND_ATTRIBUTES's pointer to its SID (2.2.1).
   */
  private deferredPairs(header: ArrayHeader): number[] {
    if (header.pointer === 0) return [];
    this.conformance(header.count, 8);
    const firsts: number[] = [];
    for (let i = 0; i < header.count; i++) {
      firsts.push(this.u32());
      this.u32();
    }
    return firsts;
  }

  /** GROUP_MEMBERSHIPs: the groups' RIDs. */
  deferredRids(header: ArrayHeader): number[] {
    return this.deferredPairs(header);
  }

  /** KERB_SID_AND_ATTRIBUTES, then the RPC_SIDs their non-null pointers point to. */
  deferredExtraSids(header: ArrayHeader): string[] {
    return this.deferredPairs(header).filter((p) => p !== 0).map(() => this.sid());
  }

  /** RPC_SID (MS-DTYP 2.4.2.3) as NDR sends a conformant structure: the sub-authority count first, then the SID. */
  sid(): string {
    const max = this.u32();
    const read = inProtocol(() => readSid(this.buf, this.at), (message) => invalid(`PAC_LOGON_INFO has a malformed SID: ${message}`));
    const count = (read.size - 8) / 4;
    if (count !== max) throw invalid(`PAC_LOGON_INFO has a SID with ${count} sub-authorities (${max} announced)`);
    this.take(read.size, 1);
    return read.sid;
  }
}
