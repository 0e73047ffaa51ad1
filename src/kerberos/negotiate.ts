/**
 * HTTP Negotiate (RFC 4559) on the service's side: the token of `Authorization: Negotiate <base64>` is a SPNEGO
 * NegTokenInit (RFC 4178) whose optimistic mechToken is the Kerberos AP-REQ (browsers, the Windows WebDAV
 * redirector), or the Kerberos token alone (some libraries). The answer for `WWW-Authenticate: Negotiate <token>` is
 * a NegTokenResp accept-completed carrying the AP-REP, in the client's own wrapping. Only Kerberos is accepted: a
 * client that offers NTLM first is refused by name, since an NTLM logon gives no ticket for S4U2Proxy to present.
 * SPNEGO here is read with the Kerberos DER codec (src/kerberos imports nothing of src/smb).
 */
import { Fields, ctx, decode, encode, enumerated, fields, octets, oid, oidOf, unAppAll, unCtx } from './der.js';
import { KerberosProtocolError } from './errors.js';
import { KRB5_OID, MS_KRB5_OID, isKerberosToken } from './gss.js';
import type { AcceptedContext, KerberosAcceptor } from './acceptor.js';

const SPNEGO_OID = '1.3.6.1.5.5.2';
const NTLMSSP_OID = '1.3.6.1.4.1.311.2.2.10';
const ACCEPT_COMPLETED = 0;

/** Windows' own MaxTokenSize is 48 KiB (a ticket with a large PAC); a longer header is refused before decoding. */
export const MAX_TOKEN_BYTES = 64 * 1024;

/** The token of an `Authorization: Negotiate <base64>` header value. */
export function negotiateToken(authorization: string): Buffer {
  if (authorization.length > 16 + Math.ceil(MAX_TOKEN_BYTES / 3) * 4) throw new KerberosProtocolError(`Negotiate token longer than ${MAX_TOKEN_BYTES} bytes`);
  const m = /^Negotiate +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  if (!m) throw new KerberosProtocolError('Authorization: expected "Negotiate <base64 token>"');
  return Buffer.from(m[1]!, 'base64');
}

/** The Kerberos token a Negotiate token carries, and the SPNEGO mechanism OID the client named it by (null: no SPNEGO). */
export function kerberosTokenOf(token: Buffer): { mech: string | null; krbToken: Buffer } {
  if (isKerberosToken(token)) return { mech: null, krbToken: token };
  if (token.subarray(0, 8).equals(Buffer.from('NTLMSSP\0', 'latin1'))) {
    throw new KerberosProtocolError('Negotiate: the client sent NTLM (it holds no Kerberos ticket for this service); only Kerberos is accepted');
  }
  const parts = unAppAll(decode(token, 'SPNEGO token'), 0, 'SPNEGO token');
  if (parts.length !== 2 || oidOf(parts[0]!, 'SPNEGO token mechanism') !== SPNEGO_OID) throw new KerberosProtocolError('Negotiate: neither a SPNEGO nor a Kerberos token');
  const init = new Fields(unCtx(parts[1]!, 0, 'NegTokenInit'), 'NegTokenInit');
  const first = init.list(0).map((b, i) => oidOf(b, `NegTokenInit mechType ${i}`))[0];
  if (first !== KRB5_OID && first !== MS_KRB5_OID) {
    const name = first === NTLMSSP_OID ? 'NTLM' : (first ?? 'nothing');
    throw new KerberosProtocolError(`SPNEGO: the client prefers ${name}; only Kerberos is accepted (it needs a ticket for this service's HTTP/ principal)`);
  }
  if (!init.has(2)) throw new KerberosProtocolError('SPNEGO: the NegTokenInit carries no Kerberos token');
  return { mech: first, krbToken: init.octets(2) };
}

/** NegTokenResp accept-completed naming the client's mechanism OID, with the AP-REP when there is one. */
export function negTokenAccepted(mech: string, responseToken: Buffer | null): Buffer {
  return encode(ctx(1, fields([0, enumerated(ACCEPT_COMPLETED)], [1, oid(mech)], [2, responseToken ? octets(responseToken) : undefined])));
}

export interface NegotiateAccepted {
  context: AcceptedContext;
  /** The `WWW-Authenticate` value of the successful answer, or null when there is nothing to send back. */
  wwwAuthenticate: string | null;
}

/** Authenticates an `Authorization: Negotiate` header value; throws a KerberosError naming the reason on any refusal. */
export function acceptNegotiate(acceptor: KerberosAcceptor, authorization: string, now: Date = new Date()): NegotiateAccepted {
  const { mech, krbToken } = kerberosTokenOf(negotiateToken(authorization));
  const context = acceptor.accept(krbToken, now);
  const reply = mech === null ? context.replyToken : negTokenAccepted(mech, context.replyToken);
  return { context, wwwAuthenticate: reply && `Negotiate ${reply.toString('base64')}` };
}
