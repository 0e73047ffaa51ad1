/**
 * HTTP Negotiate (RFC 4559) on the service's side: the token of `Authorization: Negotiate <base64>` is a SPNEGO
 * NegTokenInit (RFC 4178) whose optimistic mechToken is the Kerberos AP-REQ (browsers, the Windows WebDAV
 * redirector), or the Kerberos token alone (some libraries). The answer for `WWW-Authenticate: Negotiate <token>` is
 * a NegTokenResp accept-completed carrying the AP-REP, in the client's own wrapping. Only Kerberos is accepted: a
 * client that offers NTLM first is refused by name, since an NTLM logon gives no ticket for S4U2Proxy to present.
 * SPNEGO is read and written with the one codec (spnego.ts) the SMB client uses too.
 */
import { KerberosProtocolError } from './errors.js';
import { KRB5_OID, MS_KRB5_OID, isKerberosToken } from './gss.js';
import { NTLMSSP_OID, NegState, negTokenResp, parseNegTokenInit } from './spnego.js';
import type { AcceptedContext, KerberosAcceptor } from './acceptor.js';

/** Windows' own MaxTokenSize is 48 KiB (a ticket with a large PAC); a longer header is refused before decoding. */
const MAX_TOKEN_BYTES = 64 * 1024;

/** The token of an `Authorization: Negotiate <base64>` header value. */
function negotiateToken(authorization: string): Buffer {
  if (authorization.length > 16 + Math.ceil(MAX_TOKEN_BYTES / 3) * 4) throw new KerberosProtocolError(`Negotiate token longer than ${MAX_TOKEN_BYTES} bytes`);
  const m = /^Negotiate +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  if (!m) throw new KerberosProtocolError('Authorization: expected "Negotiate <base64 token>"');
  return Buffer.from(m[1]!, 'base64');
}

/** The Kerberos token a Negotiate token carries, and the SPNEGO mechanism OID the client named it by (null: no SPNEGO). */
function kerberosTokenOf(token: Buffer): { mech: string | null; krbToken: Buffer } {
  if (isKerberosToken(token)) return { mech: null, krbToken: token };
  if (token.subarray(0, 8).equals(Buffer.from('NTLMSSP\0', 'latin1'))) {
    throw new KerberosProtocolError('Negotiate: the client sent NTLM (it holds no Kerberos ticket for this service); only Kerberos is accepted');
  }
  const { mechTypes, mechToken } = parseNegTokenInit(token);
  const first = mechTypes[0];
  if (first !== KRB5_OID && first !== MS_KRB5_OID) {
    const name = first === NTLMSSP_OID ? 'NTLM' : (first ?? 'nothing');
    throw new KerberosProtocolError(`SPNEGO: the client prefers ${name}; only Kerberos is accepted (it needs a ticket for this service's HTTP/ principal)`);
  }
  if (!mechToken) throw new KerberosProtocolError('SPNEGO: the NegTokenInit carries no Kerberos token');
  return { mech: first, krbToken: mechToken };
}

interface NegotiateAccepted {
  context: AcceptedContext;
  /** The `WWW-Authenticate` value of the successful answer, or null when there is nothing to send back. */
  wwwAuthenticate: string | null;
}

/** Authenticates an `Authorization: Negotiate` header value; rejects with a KerberosError naming the reason on any refusal. */
export async function acceptNegotiate(acceptor: KerberosAcceptor, authorization: string, now: Date = new Date()): Promise<NegotiateAccepted> {
  const { mech, krbToken } = kerberosTokenOf(negotiateToken(authorization));
  const context = await acceptor.accept(krbToken, now);
  // The answer names the mechanism in the client's own spelling (Windows sends Microsoft's OID first).
  const reply = mech === null ? context.replyToken : negTokenResp({ negState: NegState.ACCEPT_COMPLETED, supportedMech: mech, responseToken: context.replyToken });
  return { context, wwwAuthenticate: reply && `Negotiate ${reply.toString('base64')}` };
}
