/**
 * The Kerberos GSS-API mechanism as an initiator (RFC 4121, RFC 1964 token framing): an AP-REQ with a fresh
 * subkey and mutual authentication asked for, wrapped as an InitialContextToken; then the acceptor's AP-REP,
 * whose encrypted part proves it holds the service key and may name the acceptor subkey. The context key
 * (RFC 4121 2: the acceptor subkey if sent, else the initiator's) is what SMB derives its keys from.
 */
import { randomInt } from 'node:crypto';
import { encryptionType, randomKey, type EncryptionKey } from './crypto.js';
import { KerberosError, KerberosProtocolError } from './errors.js';
import { kdcFailure, sealAuthenticator, type Credential } from './exchanges.js';
import { ApOption, KeyUsage, encodeApReq, parseApRep, parseEncApRepPart } from './messages.js';

/** The Kerberos 5 mechanism OID 1.2.840.113554.1.2.2 in DER, and Microsoft's variant 1.2.840.48018.1.2.2. */
export const KRB5_OID = '1.2.840.113554.1.2.2';
export const MS_KRB5_OID = '1.2.840.48018.1.2.2';
const KRB5_OID_DER = Buffer.from('06092a864886f712010202', 'hex');

export const TokId = { AP_REQ: 0x0100, AP_REP: 0x0200, ERROR: 0x0300 } as const;

/** GSS checksum type 0x8003 (RFC 4121 4.1.1) and the context flags it carries. */
export const GSS_CHECKSUM = 0x8003;
export const GssFlag = { MUTUAL: 2, REPLAY: 4, SEQUENCE: 8, CONF: 16, INTEG: 32 } as const;

/** A DER length field. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** [APPLICATION 0] { mech OID, TOK_ID, inner token } (RFC 2743 3.1, RFC 4121 4.1). */
export function frame(tokId: number, inner: Buffer): Buffer {
  const id = Buffer.alloc(2);
  id.writeUInt16BE(tokId);
  const body = Buffer.concat([KRB5_OID_DER, id, inner]);
  return Buffer.concat([Buffer.from([0x60]), derLength(body.length), body]);
}

/** Whether a token is a Kerberos mechanism token rather than SPNEGO's: both share the InitialContextToken framing. */
export function isKerberosToken(token: Buffer): boolean {
  if (token.length < 2 || token[0] !== 0x60) return false;
  const start = contentStart(token);
  return token.subarray(start, start + KRB5_OID_DER.length).equals(KRB5_OID_DER);
}

/** Where the content of the [APPLICATION 0] framing starts, its length checked against the token's. */
function contentStart(token: Buffer): number {
  if (token.length < 2 || token[0] !== 0x60) throw new KerberosProtocolError('GSS token: not an InitialContextToken');
  let offset = 2;
  let length = token[1]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || token.length < 2 + n) throw new KerberosProtocolError('GSS token: bad length');
    length = token.readUIntBE(2, n);
    offset += n;
  }
  if (offset + length !== token.length) throw new KerberosProtocolError('GSS token: length does not match');
  return offset;
}

/** The token id and inner token of a Kerberos mechanism token. */
export function unframe(token: Buffer): { tokId: number; inner: Buffer } {
  let offset = contentStart(token);
  if (!token.subarray(offset, offset + KRB5_OID_DER.length).equals(KRB5_OID_DER)) throw new KerberosProtocolError('GSS token: not of the Kerberos mechanism');
  offset += KRB5_OID_DER.length;
  if (offset + 2 > token.length) throw new KerberosProtocolError('GSS token: no token id');
  return { tokId: token.readUInt16BE(offset), inner: token.subarray(offset + 2) };
}

export interface InitiatorContext {
  /** The InitialContextToken to send. */
  token: Buffer;
  /** Checks the acceptor's reply token and returns the context key; throws on a refusal or a forged reply. */
  complete(replyToken: Buffer): EncryptionKey;
}

/** Starts a security context with the service of `ticket` (a credential from a TGS exchange). */
export function initiateContext(ticket: Credential, now: Date = new Date()): InitiatorContext {
  const subkey = randomKey(ticket.key.etype);
  const checksum = Buffer.alloc(24);
  checksum.writeUInt32LE(16, 0); // Lgth of the channel bindings; they stay zero (no bindings over SMB)
  checksum.writeUInt32LE(GssFlag.MUTUAL | GssFlag.REPLAY | GssFlag.SEQUENCE | GssFlag.CONF | GssFlag.INTEG, 20);
  const authenticator = sealAuthenticator(
    ticket,
    KeyUsage.AP_REQ_AUTHENTICATOR,
    { cksum: { type: GSS_CHECKSUM, value: checksum }, subkey, seqNumber: randomInt(0, 0x7fffffff) },
    now,
  );
  const token = frame(TokId.AP_REQ, encodeApReq(ApOption.MUTUAL_REQUIRED, ticket.ticket, authenticator));
  const service = ticket.ticket.sname.names.join('/');
  return {
    token,
    complete(replyToken: Buffer): EncryptionKey {
      const { tokId, inner } = unframe(replyToken);
      const reply = parseApRep(inner);
      if (reply.kind === 'error') throw kdcFailure(reply.error, `${service} refused the ticket`);
      if (tokId !== TokId.AP_REP) throw new KerberosProtocolError(`GSS token: expected AP-REP, got token id 0x${tokId.toString(16)}`);
      const part = parseEncApRepPart(encryptionType(ticket.key.etype).decrypt(ticket.key.value, KeyUsage.AP_REP_ENC_PART, reply.encPart.cipher));
      // Mutual authentication: only the holder of the service key could echo the authenticator's time.
      if (part.ctime.getTime() !== Math.floor(now.getTime() / 1000) * 1000 || part.cusec !== (now.getTime() % 1000) * 1000) {
        throw new KerberosError('INTEGRITY', `${service}: the AP-REP does not answer this authenticator`);
      }
      return part.subkey ?? subkey;
    },
  };
}
