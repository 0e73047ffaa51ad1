/**
 * Typed errors of the Kerberos client and acceptor. Callers switch on `code`; a KDC's answer also carries its error
 * code (RFC 4120 7.5.9) so that a refusal can be explained in the directory's terms.
 */

export type KerberosErrorCode =
  /** A message from the KDC or the server could not be decoded: malformed DER or a field out of range. */
  | 'PROTOCOL_ERROR'
  /** A checksum or the integrity tag of an encrypted part did not verify: wrong key or tampered message. */
  | 'INTEGRITY'
  /** The KDC answered KRB-ERROR (see `kdcError`). */
  | 'KDC_ERROR'
  /** The clocks of the service and the KDC (or a client, at the acceptor) differ by more than is allowed. */
  | 'CLOCK_SKEW'
  /** No KDC answered, or the connection to it failed. */
  | 'KDC_UNREACHABLE'
  /** An encryption type no key or no implementation exists for. */
  | 'UNSUPPORTED_ETYPE'
  /** A keytab file that cannot be read or holds no key for the principal. */
  | 'KEYTAB'
  /** The acceptor refused a ticket: not for this service, not yet valid, expired, or its authenticator names another client. */
  | 'TICKET_INVALID'
  /**
   * The acceptor refused a ticket's PAC: none, malformed, its server signature not verifying with the service key,
   * or its client information not the ticket's client (pac.ts).
   */
  | 'PAC_INVALID'
  /** The acceptor has seen this authenticator before (RFC 4120 3.2.3: a replayed AP-REQ). */
  | 'REPLAY'
  /** The replay cache is full of authenticators still within the skew window: refused rather than forgetting one. */
  | 'REPLAY_CACHE_FULL'
  /** Wrong use of the client (for example a ticket that has already expired is offered). */
  | 'INVALID_ARGUMENT';

export class KerberosError extends Error {
  constructor(
    readonly code: KerberosErrorCode,
    message: string,
    /** The KRB-ERROR error-code when the KDC or the server refused. */
    readonly kdcError?: number,
  ) {
    super(message);
    this.name = 'KerberosError';
  }
}

/** A malformed message: the decoders throw only this (the fuzz tests hold them to it). */
export class KerberosProtocolError extends KerberosError {
  constructor(message: string) {
    super('PROTOCOL_ERROR', message);
    this.name = 'KerberosProtocolError';
  }
}
