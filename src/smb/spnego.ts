/**
 * The SPNEGO wrapping of the logon tokens (RFC 4178, MS-SPNG): a NegTokenInit offering one mechanism and carrying
 * its first token (the NTLM NEGOTIATE, or the Kerberos AP-REQ), NegTokenResp messages for the rest of the
 * exchange. Only the chosen mechanism is offered, so that a Kerberos logon sends nothing of NTLM. Just enough
 * DER, every length checked.
 */
import { KRB5_OID, MS_KRB5_OID, derLength } from '../kerberos/gss.js';
import { SmbProtocolError } from './errors.js';

const SPNEGO_OID = '1.3.6.1.5.5.2';
export const NTLMSSP_OID = '1.3.6.1.4.1.311.2.2.10';

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const enc: number[] = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) enc.unshift(0x80 | (v & 0x7f));
    out.push(...enc);
  }
  return tlv(0x06, Buffer.from(out));
}

/** The MechTypeList of an NTLM logon (NTLMSSP only), as DER: what the mechListMIC of both sides covers (RFC 4178). */
export const MECH_TYPES = tlv(0x30, oid(NTLMSSP_OID));

/** The MechTypeList of a Kerberos logon: Microsoft's Kerberos OID first, as Windows clients send it, then RFC 4121's. */
export const KERBEROS_MECH_TYPES = tlv(0x30, oid(MS_KRB5_OID), oid(KRB5_OID));

/** GSS-API InitialContextToken with a NegTokenInit offering `mechTypes` and carrying the first token of the first. */
export function negTokenInit(mechToken: Buffer, mechTypes: Buffer = MECH_TYPES): Buffer {
  const init = tlv(0x30, tlv(0xa0, mechTypes), tlv(0xa2, tlv(0x04, mechToken)));
  return tlv(0x60, oid(SPNEGO_OID), tlv(0xa0, init));
}

/** NegTokenResp carrying the next client token and, with it, the client's mechListMIC. */
export function negTokenResp(responseToken: Buffer, mechListMic?: Buffer): Buffer {
  const mic = mechListMic ? [tlv(0xa3, tlv(0x04, mechListMic))] : [];
  return tlv(0xa1, tlv(0x30, tlv(0xa2, tlv(0x04, responseToken)), ...mic));
}

interface Tlv {
  tag: number;
  content: Buffer;
  end: number;
}

function readTlv(buf: Buffer, offset: number): Tlv {
  if (offset + 2 > buf.length) throw new SmbProtocolError('SPNEGO token truncated');
  const tag = buf[offset]!;
  let len = buf[offset + 1]!;
  let start = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > buf.length) throw new SmbProtocolError('SPNEGO token has a bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  if (start + len > buf.length) throw new SmbProtocolError('SPNEGO element exceeds its token');
  return { tag, content: buf.subarray(start, start + len), end: start + len };
}

function children(buf: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let off = 0; off < buf.length; ) {
    const t = readTlv(buf, off);
    out.push(t);
    off = t.end;
  }
  return out;
}

export interface NegTokenRespFields {
  negState: number | null;
  responseToken: Buffer | null;
  mechListMic: Buffer | null;
}

export const NegState = { ACCEPT_COMPLETED: 0, ACCEPT_INCOMPLETE: 1, REJECT: 2 } as const;

/** Parses the server's NegTokenResp ([1] SEQUENCE { [0] negState, [1] mech, [2] responseToken, [3] mic }). */
export function parseNegTokenResp(token: Buffer): NegTokenRespFields {
  const outer = readTlv(token, 0);
  if (outer.tag !== 0xa1) throw new SmbProtocolError(`SPNEGO: expected NegTokenResp, got tag 0x${outer.tag.toString(16)}`);
  const seq = readTlv(outer.content, 0);
  if (seq.tag !== 0x30) throw new SmbProtocolError('SPNEGO: NegTokenResp is not a SEQUENCE');
  const result: NegTokenRespFields = { negState: null, responseToken: null, mechListMic: null };
  for (const el of children(seq.content)) {
    const inner = readTlv(el.content, 0);
    if (el.tag === 0xa0 && inner.tag === 0x0a && inner.content.length === 1) result.negState = inner.content[0]!;
    if (el.tag === 0xa2 && inner.tag === 0x04) result.responseToken = Buffer.from(inner.content);
    if (el.tag === 0xa3 && inner.tag === 0x04) result.mechListMic = Buffer.from(inner.content);
  }
  return result;
}
