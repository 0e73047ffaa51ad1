/**
 * SPNEGO (RFC 4178, MS-SPNG), the one codec for both sides of the service: as an SMB client it offers one
 * mechanism in a NegTokenInit (the NTLM NEGOTIATE, or the Kerberos AP-REQ) and reads the server's NegTokenResp;
 * as an HTTP Negotiate acceptor (RFC 4559) it reads a client's NegTokenInit and answers with a NegTokenResp.
 * On the Kerberos DER codec, so a malformed token is a KerberosProtocolError whichever side reads it.
 */
import { Fields, app, ctx, decode, encode, enumerated, fields, octets, oid, oidOf, raw, seq, unAppAll, unCtx } from './der.js';
import { KerberosProtocolError } from './errors.js';
import { KRB5_OID, MS_KRB5_OID } from './gss.js';

const SPNEGO_OID = '1.3.6.1.5.5.2';
export const NTLMSSP_OID = '1.3.6.1.4.1.311.2.2.10';

export const NegState = { ACCEPT_COMPLETED: 0, ACCEPT_INCOMPLETE: 1, REJECT: 2 } as const;

/** A MechTypeList as DER: what the mechListMIC of both sides covers, so it is kept as the bytes sent. */
const mechTypeList = (...oids: string[]): Buffer => encode(seq(oids.map(oid)));

/** The MechTypeList of an NTLM logon (NTLMSSP only). */
export const MECH_TYPES = mechTypeList(NTLMSSP_OID);

/** The MechTypeList of a Kerberos logon: Microsoft's Kerberos OID first, as Windows clients send it, then RFC 4121's. */
export const KERBEROS_MECH_TYPES = mechTypeList(MS_KRB5_OID, KRB5_OID);

/** GSS-API InitialContextToken with a NegTokenInit offering `mechTypes` and carrying the first token of the first. */
export function negTokenInit(mechToken: Buffer, mechTypes: Buffer = MECH_TYPES): Buffer {
  return encode(app(0, oid(SPNEGO_OID), ctx(0, fields([0, raw(mechTypes)], [2, octets(mechToken)]))));
}

interface NegTokenInitFields {
  /** The mechanisms the client offers, most preferred first, as dotted OIDs. */
  mechTypes: string[];
  /** The optimistic token of the first mechanism, if sent. */
  mechToken: Buffer | null;
}

/** Reads a client's NegTokenInit inside its InitialContextToken framing. */
export function parseNegTokenInit(token: Buffer): NegTokenInitFields {
  const parts = unAppAll(decode(token, 'SPNEGO token'), 0, 'SPNEGO token');
  if (parts.length !== 2 || oidOf(parts[0]!, 'SPNEGO token mechanism') !== SPNEGO_OID) throw new KerberosProtocolError('SPNEGO token: not of the SPNEGO mechanism');
  const init = new Fields(unCtx(parts[1]!, 0, 'NegTokenInit'), 'NegTokenInit');
  return {
    mechTypes: init.list(0).map((b, i) => oidOf(b, `NegTokenInit mechType ${i}`)),
    mechToken: init.has(2) ? init.octets(2) : null,
  };
}

export interface NegTokenRespFields {
  negState: number | null;
  supportedMech: string | null;
  responseToken: Buffer | null;
  mechListMic: Buffer | null;
}

/** NegTokenResp ([1] SEQUENCE { [0] negState, [1] supportedMech, [2] responseToken, [3] mechListMIC }), the fields given. */
export function negTokenResp(f: Partial<NegTokenRespFields>): Buffer {
  return encode(ctx(1, fields(
    [0, f.negState == null ? undefined : enumerated(f.negState)],
    [1, f.supportedMech ? oid(f.supportedMech) : undefined],
    [2, f.responseToken ? octets(f.responseToken) : undefined],
    [3, f.mechListMic ? octets(f.mechListMic) : undefined],
  )));
}

/** Reads a NegTokenResp (the file server's answers to the SMB client). */
export function parseNegTokenResp(token: Buffer): NegTokenRespFields {
  const resp = new Fields(unCtx(decode(token, 'NegTokenResp'), 1, 'NegTokenResp'), 'NegTokenResp');
  return {
    negState: resp.has(0) ? resp.int(0) : null,
    supportedMech: resp.has(1) ? resp.oid(1) : null,
    responseToken: resp.has(2) ? resp.octets(2) : null,
    mechListMic: resp.has(3) ? resp.octets(3) : null,
  };
}
