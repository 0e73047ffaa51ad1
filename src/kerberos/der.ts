/**
 * DER for the Kerberos messages, on asn1js (PeculiarVentures, the codec under PKI.js): it encodes and decodes
 * every universal type Kerberos uses (GeneralString, GeneralizedTime, BIT STRING) with no schema compiler or
 * TypeScript decorators (which @peculiar/asn1-schema needs and this project's tsconfig does not enable), and since
 * 4.0 it bounds depth, node count and content length while decoding, which is what a parser of network input needs.
 * This module adds the two things RFC 4120 leans on everywhere: explicit context tags [n] around every field and
 * APPLICATION tags around the messages, and a reader that turns any shape mismatch into KerberosProtocolError.
 */
import * as asn1 from 'asn1js';
import { KerberosProtocolError } from './errors.js';

export type Block = asn1.AsnType;

const TagClass = { UNIVERSAL: 1, APPLICATION: 2, CONTEXT: 3 } as const;
/** Kerberos messages are a few kilobytes; a PAC-bearing ticket stays far below these. */
const LIMITS = { maxDepth: 32, maxNodes: 4096, maxContentLength: 1 << 20, parseEmbedded: false };

// ---- encoding ----

/** Explicit context tag [n] around one value. */
export function ctx(n: number, value: Block): Block {
  return new asn1.Constructed({ idBlock: { tagClass: TagClass.CONTEXT, tagNumber: n }, value: [value] });
}

/** APPLICATION n around its values: one for RFC 4120's messages, two for GSS's InitialContextToken (OID, token). */
export function app(n: number, ...values: Block[]): Block {
  return new asn1.Constructed({ idBlock: { tagClass: TagClass.APPLICATION, tagNumber: n }, value: values });
}

/** SEQUENCE of the fields that are present, each in its context tag; undefined fields are left out. */
export function fields(...entries: [number, Block | undefined][]): Block {
  return new asn1.Sequence({ value: entries.filter(([, v]) => v !== undefined).map(([n, v]) => ctx(n, v!)) });
}

export const seq = (values: Block[]): Block => new asn1.Sequence({ value: values });
export const int = (n: number): Block => (n > 0x7fffffff ? asn1.Integer.fromBigInt(BigInt(n)) : new asn1.Integer({ value: n }));
export const str = (s: string): Block => new asn1.GeneralString({ value: s });
export const octets = (b: Buffer): Block => new asn1.OctetString({ valueHex: b });
export const bool = (v: boolean): Block => new asn1.Boolean({ value: v });
export const enumerated = (n: number): Block => new asn1.Enumerated({ value: n });
/** An OBJECT IDENTIFIER from its dotted form (the GSS mechanism OIDs of SPNEGO). */
export const oid = (dotted: string): Block => new asn1.ObjectIdentifier({ value: dotted });
/** KerberosTime: GeneralizedTime in UTC with whole seconds (RFC 4120 5.2.3). */
export const time = (d: Date): Block => new asn1.GeneralizedTime({ valueDate: new Date(Math.floor(d.getTime() / 1000) * 1000) });
/** A 32-bit flag field (KDCOptions, APOptions): bit 0 is the most significant bit of the first byte. */
export function flags(bits: number): Block {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(bits >>> 0);
  return new asn1.BitString({ valueHex: b, unusedBits: 0 });
}
/** Bit n of a Kerberos flag field, numbered from the left as RFC 4120 does. */
export const flagBit = (n: number): number => (0x80000000 >>> n) >>> 0;

/** A value already in DER (a ticket kept as the KDC sent it), placed into a new message unchanged. */
export function raw(der: Buffer): Block {
  return decode(der, 'embedded value');
}

export function encode(block: Block): Buffer {
  return Buffer.from(block.toBER());
}

// ---- decoding ----

export function decode(buf: Buffer, what: string): Block {
  let result: asn1.FromBerResult;
  try {
    result = asn1.fromBER(buf, LIMITS);
  } catch (err) {
    throw new KerberosProtocolError(`${what}: ${(err as Error).message}`);
  }
  if (result.offset === -1 || result.result.error) throw new KerberosProtocolError(`${what}: not DER (${result.result.error || 'malformed'})`);
  if (result.offset !== buf.length) throw new KerberosProtocolError(`${what}: ${buf.length - result.offset} bytes after the value`);
  return result.result;
}

function tagOf(b: Block): { cls: number; n: number } {
  return { cls: b.idBlock.tagClass, n: b.idBlock.tagNumber };
}

function children(b: Block, what: string): Block[] {
  const value = (b.valueBlock as { value?: unknown }).value;
  if (!b.idBlock.isConstructed || !Array.isArray(value)) throw new KerberosProtocolError(`${what}: expected a constructed value`);
  return value as Block[];
}

/** The values inside APPLICATION n (GSS's InitialContextToken holds two: the mechanism OID and its token). */
export function unAppAll(b: Block, n: number, what: string): Block[] {
  const t = tagOf(b);
  if (t.cls !== TagClass.APPLICATION || t.n !== n) throw new KerberosProtocolError(`${what}: expected [APPLICATION ${n}], got class ${t.cls} tag ${t.n}`);
  return children(b, what);
}

/** The value inside APPLICATION n. */
export function unApp(b: Block, n: number, what: string): Block {
  const inner = unAppAll(b, n, what);
  if (inner.length !== 1) throw new KerberosProtocolError(`${what}: [APPLICATION ${n}] must hold one value`);
  return inner[0]!;
}

/** The value inside an explicit context tag [n] that stands alone (SPNEGO's NegotiationToken CHOICE). */
export function unCtx(b: Block, n: number, what: string): Block {
  const t = tagOf(b);
  const inner = t.cls === TagClass.CONTEXT && t.n === n ? children(b, what) : [];
  if (inner.length !== 1) throw new KerberosProtocolError(`${what}: expected one value in [${n}], got class ${t.cls} tag ${t.n}`);
  return inner[0]!;
}

/** A bare OBJECT IDENTIFIER in its dotted form. */
export function oidOf(b: Block, what: string): string {
  if (!(b instanceof asn1.ObjectIdentifier)) throw new KerberosProtocolError(`${what}: expected an OBJECT IDENTIFIER`);
  return b.getValue();
}

/** The elements of a bare SEQUENCE OF. */
export function sequenceOf(b: Block, what: string): Block[] {
  if (!(b instanceof asn1.Sequence)) throw new KerberosProtocolError(`${what}: expected a SEQUENCE OF`);
  return children(b, what);
}

/** A bare KerberosString (an element of a SEQUENCE OF). */
export function stringOf(b: Block, what: string): string {
  if (!(b instanceof asn1.GeneralString)) throw new KerberosProtocolError(`${what}: expected a GeneralString`);
  return b.valueBlock.value;
}

/** The fields of a SEQUENCE of context-tagged values, by tag number. */
export class Fields {
  private readonly byTag = new Map<number, Block>();
  constructor(
    b: Block,
    private readonly what: string,
  ) {
    if (!(b instanceof asn1.Sequence)) throw new KerberosProtocolError(`${what}: expected a SEQUENCE`);
    for (const field of children(b, what)) {
      const t = tagOf(field);
      const inner = children(field, what);
      if (t.cls !== TagClass.CONTEXT || inner.length !== 1) throw new KerberosProtocolError(`${what}: field is not an explicit context tag`);
      this.byTag.set(t.n, inner[0]!);
    }
  }

  has(n: number): boolean {
    return this.byTag.has(n);
  }

  private get(n: number): Block {
    const b = this.byTag.get(n);
    if (!b) throw new KerberosProtocolError(`${this.what}: field [${n}] missing`);
    return b;
  }

  private typed<T>(n: number, type: abstract new (...args: never[]) => T, kind: string): T {
    const b = this.get(n);
    if (!(b instanceof type)) throw new KerberosProtocolError(`${this.what}: field [${n}] is not ${kind}`);
    return b;
  }

  block(n: number): Block {
    return this.get(n);
  }

  /** An INTEGER, or an ENUMERATED (asn1js's Enumerated is an Integer). */
  int(n: number): number {
    const i = this.typed(n, asn1.Integer, 'an INTEGER');
    if (i.valueBlock.valueHexView.length > 5) throw new KerberosProtocolError(`${this.what}: field [${n}] exceeds 32 bits`);
    return Number(i.toBigInt());
  }

  str(n: number): string {
    return stringOf(this.get(n), `${this.what} field [${n}]`);
  }

  octets(n: number): Buffer {
    return Buffer.from(this.typed(n, asn1.OctetString, 'an OCTET STRING').getValue());
  }

  time(n: number): Date {
    const d = this.typed(n, asn1.GeneralizedTime, 'a GeneralizedTime').toDate();
    if (Number.isNaN(d.getTime())) throw new KerberosProtocolError(`${this.what}: field [${n}] is not a valid time`);
    return d;
  }

  oid(n: number): string {
    return oidOf(this.get(n), `${this.what} field [${n}]`);
  }

  bool(n: number): boolean {
    return this.typed(n, asn1.Boolean, 'a BOOLEAN').getValue();
  }

  flags(n: number): number {
    const bytes = Buffer.from(this.typed(n, asn1.BitString, 'a BIT STRING').valueBlock.valueHexView);
    const four = Buffer.alloc(4);
    bytes.copy(four, 0, 0, 4);
    return four.readUInt32BE(0);
  }

  /** The elements of a SEQUENCE OF in field n. */
  list(n: number): Block[] {
    return sequenceOf(this.get(n), `${this.what} field [${n}]`);
  }

  /** The DER of field n exactly as received (tickets are passed on unchanged). */
  der(n: number): Buffer {
    return encode(this.get(n));
  }
}
