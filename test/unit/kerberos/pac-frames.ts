// PACs as a KDC builds them (MS-PAC 2.3–2.8), for the unit tests of the PAC reader and the acceptor: the logon
// information in NDR, the client information, and both signatures, the server's made with the service key. Every
// part can be given wrong on purpose.
import { randomBytes } from 'node:crypto';
import { aes256Sha1 } from '../../../src/kerberos/crypto.js';
import { encode, fields, int, octets, seq } from '../../../src/kerberos/der.js';

export interface PacSpec {
  /** The logon domain's SID, e.g. S-1-5-21-1-2-3. */
  domainSid: string;
  userRid: number;
  groupRids: number[];
  extraSids: string[];
  /** EffectiveName. */
  account: string;
  /** PAC_CLIENT_INFO's name and time. */
  clientName: string;
  authtime: Date;
  /** The aes256 service key the server signature is made with. */
  serviceKey: Buffer;
}

/** Little-endian NDR as the reader expects it: primitives aligned to their size. */
class NdrWriter {
  private readonly parts: number[] = [];
  private align(n: number): void {
    while (this.parts.length % n !== 0) this.parts.push(0);
  }
  u16(v: number): this {
    this.align(2);
    this.parts.push(v & 0xff, (v >> 8) & 0xff);
    return this;
  }
  u32(v: number): this {
    this.align(4);
    for (let i = 0; i < 4; i++) this.parts.push((v >>> (8 * i)) & 0xff);
    return this;
  }
  bytes(b: Buffer): this {
    this.parts.push(...b);
    return this;
  }
  zeros(n: number): this {
    this.align(4);
    for (let i = 0; i < n; i++) this.parts.push(0);
    return this;
  }
  /** RPC_UNICODE_STRING's fixed part; `pointer` 0 for a null string. */
  stringHeader(s: string, pointer: number): this {
    return this.u16(s.length * 2).u16(s.length * 2).u32(s === '' ? 0 : pointer);
  }
  deferredString(s: string): this {
    if (s === '') return this;
    return this.u32(s.length).u32(0).u32(s.length).bytes(Buffer.from(s, 'utf16le'));
  }
  sid(sid: string): this {
    const [, , authority, ...subs] = sid.split('-');
    const head = Buffer.alloc(8);
    head[0] = 1;
    head[1] = subs.length;
    head.writeUIntBE(Number(authority), 2, 6);
    this.u32(subs.length).bytes(head);
    for (const sub of subs) this.u32(Number(sub));
    return this;
  }
  get buffer(): Buffer {
    return Buffer.from(this.parts);
  }
}

/** KERB_VALIDATION_INFO in NDR type serialization version 1, as PAC_LOGON_INFO carries it. */
export function logonInfo(spec: Pick<PacSpec, 'domainSid' | 'userRid' | 'groupRids' | 'extraSids' | 'account'>): Buffer {
  const w = new NdrWriter();
  w.u32(0x20000); // the top-level pointer
  w.zeros(6 * 8);
  w.stringHeader(spec.account, 0x20004);
  for (let i = 0; i < 5; i++) w.stringHeader('', 0);
  w.u16(0).u16(0).u32(spec.userRid).u32(513);
  w.u32(spec.groupRids.length).u32(spec.groupRids.length ? 0x20008 : 0);
  w.u32(0x20).zeros(16);
  w.stringHeader('DC1', 0x2000c).stringHeader('EDU', 0x20010);
  w.u32(0x20014); // LogonDomainId
  w.zeros(8).u32(0x10).u32(0).zeros(8).zeros(8).u32(0).u32(0);
  w.u32(spec.extraSids.length).u32(spec.extraSids.length ? 0x20018 : 0);
  w.u32(0).u32(0).u32(0); // no resource groups
  w.deferredString(spec.account);
  if (spec.groupRids.length) {
    w.u32(spec.groupRids.length);
    for (const rid of spec.groupRids) w.u32(rid).u32(7);
  }
  w.deferredString('DC1').deferredString('EDU');
  w.sid(spec.domainSid);
  if (spec.extraSids.length) {
    w.u32(spec.extraSids.length);
    spec.extraSids.forEach((_, i) => w.u32(0x2001c + 4 * i).u32(7));
    for (const sid of spec.extraSids) w.sid(sid);
  }
  const body = w.buffer;
  const header = Buffer.alloc(16);
  header.set([1, 0x10, 8, 0, 0xcc, 0xcc, 0xcc, 0xcc]);
  header.writeUInt32LE(Math.ceil(body.length / 8) * 8, 8);
  return Buffer.concat([header, body, Buffer.alloc(Math.ceil(body.length / 8) * 8 - body.length)]);
}

/** PAC_CLIENT_INFO: the FILETIME of `authtime`, then the name. */
export function clientInfo(name: string, authtime: Date): Buffer {
  const b = Buffer.alloc(10);
  b.writeBigUInt64LE((BigInt(authtime.getTime()) + 11_644_473_600_000n) * 10_000n, 0);
  b.writeUInt16LE(name.length * 2, 8);
  return Buffer.concat([b, Buffer.from(name, 'utf16le')]);
}

/** PACTYPE of these buffers, each 8-byte aligned after the header. */
export function pacOf(buffers: [number, Buffer][]): Buffer {
  const header = Buffer.alloc(8 + 16 * buffers.length);
  header.writeUInt32LE(buffers.length, 0);
  const parts: Buffer[] = [header];
  let at = header.length;
  buffers.forEach(([type, data], i) => {
    header.writeUInt32LE(type, 8 + 16 * i);
    header.writeUInt32LE(data.length, 12 + 16 * i);
    header.writeBigUInt64LE(BigInt(at), 16 + 16 * i);
    const padded = Math.ceil(data.length / 8) * 8;
    parts.push(data, Buffer.alloc(padded - data.length));
    at += padded;
  });
  return Buffer.concat(parts);
}

/** Where the 12 signature bytes of the buffer of `type` are in `pac`. */
export function signatureAt(pac: Buffer, type: number): number {
  for (let i = 0; i < pac.readUInt32LE(0); i++) {
    if (pac.readUInt32LE(8 + 16 * i) === type) return Number(pac.readBigUInt64LE(16 + 16 * i)) + 4;
  }
  throw new Error(`no buffer of type ${type}`);
}

/** A signed PAC of `spec`: logon info, client info, server signature (aes256, usage 17), a KDC signature. */
export function signedPac(spec: PacSpec): Buffer {
  const unsigned = (type: number) => Buffer.concat([Buffer.from([type, 0, 0, 0]), Buffer.alloc(12)]);
  const pac = pacOf([[1, logonInfo(spec)], [10, clientInfo(spec.clientName, spec.authtime)], [6, unsigned(16)], [7, unsigned(16)]]);
  aes256Sha1.checksum(spec.serviceKey, 17, pac).copy(pac, signatureAt(pac, 6));
  randomBytes(12).copy(pac, signatureAt(pac, 7));
  return pac;
}

/** The DER of a ticket's authorization-data holding `pacs` (one, as a KDC sends it) as AD-WIN2K-PAC inside AD-IF-RELEVANT. */
export function pacAuthorizationData(...pacs: Buffer[]): Buffer {
  const ifRelevant = encode(seq(pacs.map((pac) => fields([0, int(128)], [1, octets(pac)]))));
  return encode(seq([fields([0, int(1)], [1, octets(ifRelevant)])]));
}
