/**
 * SMB2 session: authentication in SPNEGO (MS-SMB2 3.2.5.3) with Kerberos (an AP-REQ with a subkey and mutual
 * authentication, one round trip) or NTLMv2 (two round trips), per-dialect key derivation, logoff.
 * Which one: `credentials.kerberos` set means Kerberos; its `fallbackToNtlm` (smb.auth: negotiate) lets a logon
 * for which no ticket can be had (no KDC answers, the server has no SPN) go on with NTLM. A wrong password is
 * never retried with NTLM: the KDC has already said no.
 */
import { NtStatus, SmbError, SmbProtocolError } from './errors.js';
import { Command, Dialect } from './header.js';
import { PreauthHash, deriveSessionKeys, verifySignature } from './crypto.js';
import { type Connection, type RequestContext, type SessionCrypto, type SmbResponse } from './connection.js';
import type { SmbRequest } from './messages/request.js';
import { emptyRequest, parseSessionSetupResponse, SessionFlags, sessionSetupRequest } from './messages/session.js';
import { authenticateMessage, negotiateMessage, ntlmMic, parseChallenge, type NtlmCredentials } from './ntlm.js';
import { KERBEROS_MECH_TYPES, MECH_TYPES, negTokenInit, negTokenResp, parseNegTokenResp, NegState, type NegTokenRespFields } from '../kerberos/spnego.js';
import { isFresh, renewalRetryDelay, renewalTime, type TicketSource } from '../kerberos/client.js';
import type { Credential } from '../kerberos/exchanges.js';
import { KerberosError, KerberosProtocolError } from '../kerberos/errors.js';
import { KdcErrorCode } from '../kerberos/messages.js';
import { initiateContext } from '../kerberos/gss.js';

export interface KerberosLogon {
  /** The principal's tickets (from its password or keytab), or a user's through the service's delegation. */
  client: TicketSource;
  /** The file server's service principal, e.g. `cifs/DC1.edu.test`: not necessarily the address connected to. */
  spn: string;
  /** smb.auth negotiate: NTLM when no ticket can be had for the server (never after a refused password). */
  fallbackToNtlm: boolean;
  /**
   * The service account whose delegation gives the tickets (`client` acts for the user): such a session is pooled
   * apart from any the user's own secret opens, which an empty password must never reach.
   */
  delegatedBy?: string;
}

/** `password` may be empty for a Kerberos logon with keys from a keytab (then NTLM is impossible). */
export type Credentials = NtlmCredentials & { kerberos?: KerberosLogon };

/** KDC answers that say the credentials themselves are wrong: a logon failure, like NTLM's. */
const REFUSED_CREDENTIALS: readonly number[] = [
  KdcErrorCode.PREAUTH_FAILED,
  KdcErrorCode.C_PRINCIPAL_UNKNOWN,
  KdcErrorCode.CLIENT_REVOKED,
  KdcErrorCode.KEY_EXPIRED,
];

/** A ticket could not be had, for a reason that says nothing about the credentials. */
function noTicket(err: unknown): boolean {
  return err instanceof KerberosError && !(err.kdcError !== undefined && REFUSED_CREDENTIALS.includes(err.kdcError));
}

/** The file server's NegTokenResp; a malformed one is the server's protocol error, like any other of its messages. */
function serverNegTokenResp(securityBuffer: Buffer): NegTokenRespFields {
  try {
    return parseNegTokenResp(securityBuffer);
  } catch (err) {
    if (err instanceof KerberosProtocolError) throw new SmbProtocolError(`SPNEGO from the server: ${err.message}`);
    throw err;
  }
}

export class Session {
  private loggedOff = false;
  /** The re-authentication under way (renewIfDue), shared by concurrent callers. */
  private renewal: Promise<void> | undefined;
  /** Re-authenticates when the ticket stops being fresh, also when no request comes (a held CHANGE_NOTIFY). */
  private renewalTimer: NodeJS.Timeout | undefined;
  /** When a re-authentication last failed: requests do not wait for another one before renewalRetryDelay. */
  private renewalFailedAt = -Infinity;

  private constructor(
    readonly connection: Connection,
    readonly crypto: SessionCrypto,
    /** Which mechanism authenticated the session. */
    readonly mechanism: 'kerberos' | 'ntlm',
    private readonly creds: Credentials,
    /** A Kerberos session's service ticket: the server ends the session when it expires (NETWORK_SESSION_EXPIRED). */
    private ticket?: Credential,
  ) {
    this.scheduleRenewal();
    connection.onceClosed(() => clearTimeout(this.renewalTimer));
  }

  private scheduleRenewal(): void {
    clearTimeout(this.renewalTimer);
    if (!this.ticket || this.loggedOff) return;
    const wait = renewalTime(this.ticket) - Date.now();
    const renew = (): void => void this.renewIfDue().then(() => this.scheduleRenewal(), () => undefined);
    this.renewalTimer = setTimeout(renew, wait > 0 ? wait + 1 : renewalRetryDelay(this.ticket, Date.now())).unref();
  }

  static async setup(conn: Connection, creds: Credentials): Promise<Session> {
    if (!creds.kerberos) return Session.setupNtlm(conn, creds);
    let ticket;
    try {
      ticket = await creds.kerberos.client.serviceTicket(creds.kerberos.spn);
    } catch (err) {
      if (creds.kerberos.fallbackToNtlm && creds.password !== '' && noTicket(err)) return Session.setupNtlm(conn, creds);
      if (!(err instanceof KerberosError)) throw err;
      // As SMB errors, so that callers answer them like the file server's own: a refused password is a logon
      // failure, no KDC answering is a timeout (the backend is unavailable, not retried), the rest a failure to
      // name (no SPN, clock skew, no AES key).
      const code = !noTicket(err) ? 'LOGON_FAILURE' : err.code === 'KDC_UNREACHABLE' ? 'TIMEOUT' : 'STATUS_ERROR';
      throw new SmbError(code, `Kerberos logon of ${creds.user}: ${err.message}`, { cause: err });
    }
    return Session.setupKerberos(conn, creds, ticket);
  }

  /** One round trip: the AP-REQ goes out, the server's AP-REP comes back in the final, signed response. */
  private static async setupKerberos(conn: Connection, creds: Credentials, ticket: Credential): Promise<Session> {
    const context = initiateContext(ticket);
    const hash = conn.preauth ? new PreauthHash(conn.preauth.digest) : null;
    const r = await conn.request(sessionSetupRequest(negTokenInit(context.token, KERBEROS_MECH_TYPES)), { onWire: (m) => hash?.update(m) });
    const response = parseSessionSetupResponse(r.reader);
    const spnego = serverNegTokenResp(response.securityBuffer);
    if (spnego.negState !== NegState.ACCEPT_COMPLETED || !spnego.responseToken) {
      throw new SmbError('LOGON_FAILURE', `server did not complete the Kerberos logon of ${creds.user} (SPNEGO state ${spnego.negState})`);
    }
    let contextKey;
    try {
      contextKey = context.complete(spnego.responseToken);
    } catch (err) {
      throw new SmbError('LOGON_FAILURE', `Kerberos logon of ${creds.user}: ${(err as Error).message}`);
    }
    const crypto: SessionCrypto = { sessionId: r.header.sessionId, signingKey: null, encryptionKey: null, decryptionKey: null, encryptData: false };
    Object.assign(crypto, deriveSessionKeys(conn.dialect, contextKey.value, hash?.digest ?? null));
    // The connection could not check this response (no keys before it arrived): the session's first signed
    // message proves the server derived the same keys, i.e. holds the service key (MS-SMB2 3.2.5.3.1).
    if (!verifySignature(conn.signingAlgorithm, crypto.signingKey!, r.raw)) {
      throw new SmbError('SIGNATURE_MISMATCH', 'the final SESSION_SETUP response of a Kerberos logon is not signed with the session key');
    }
    return Session.established(conn, creds, crypto, response.sessionFlags, 'kerberos', ticket);
  }

  /**
   * Re-authenticates a Kerberos session with a fresh ticket once its own is no longer fresh (the client's rule,
   * client.ts isFresh), before the server would end it: a SESSION_SETUP on the same session, sent and answered
   * under its keys, which stay as they are (MS-SMB2 3.2.4.2.3, 3.2.5.3.1), with mutual authentication as at the
   * first logon. Open files and trees carry on. Concurrent callers share one re-authentication; one that fails
   * (no KDC answers) leaves the session as it is while its ticket lasts, and is tried again renewalRetryDelay later.
   */
  renewIfDue(now: number = Date.now()): Promise<void> {
    if (!this.ticket || this.loggedOff || isFresh(this.ticket, now)) return Promise.resolve();
    const expired = (): boolean => this.ticket!.endtime.getTime() <= Date.now();
    if (!this.renewal && now - this.renewalFailedAt < renewalRetryDelay(this.ticket, this.renewalFailedAt) && !expired()) return Promise.resolve();
    this.renewal ??= this.reauthenticate()
      .catch((err: unknown) => {
        this.renewalFailedAt = Date.now();
        if (expired()) throw err;
      })
      .finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async reauthenticate(): Promise<void> {
    const { spn, client } = this.creds.kerberos!;
    const ticket = await client.serviceTicket(spn);
    const context = initiateContext(ticket);
    const r = await this.request(sessionSetupRequest(negTokenInit(context.token, KERBEROS_MECH_TYPES)));
    const spnego = parseNegTokenResp(parseSessionSetupResponse(r.reader).securityBuffer);
    if (spnego.negState !== NegState.ACCEPT_COMPLETED || !spnego.responseToken) {
      throw new SmbError('LOGON_FAILURE', `server did not complete the Kerberos re-authentication of ${this.creds.user} (SPNEGO state ${spnego.negState})`);
    }
    context.complete(spnego.responseToken);
    this.ticket = ticket;
    this.scheduleRenewal();
  }

  private static async setupNtlm(conn: Connection, creds: Credentials): Promise<Session> {
    const hash = conn.preauth ? new PreauthHash(conn.preauth.digest) : null;
    const negotiate = negotiateMessage();
    const r1 = await conn.request(
      sessionSetupRequest(negTokenInit(negotiate)),
      { onWire: (m) => hash?.update(m) },
      [NtStatus.MORE_PROCESSING_REQUIRED],
    );
    if (r1.header.status !== NtStatus.MORE_PROCESSING_REQUIRED) {
      throw new SmbError('LOGON_FAILURE', 'server completed the logon without an NTLM challenge');
    }
    hash?.update(r1.raw);
    const sessionId = r1.header.sessionId;
    const spnego = serverNegTokenResp(parseSessionSetupResponse(r1.reader).securityBuffer);
    if (spnego.negState === NegState.REJECT || !spnego.responseToken) {
      throw new SmbError('LOGON_FAILURE', 'server rejected NTLM authentication');
    }
    const auth = authenticateMessage(negotiate, parseChallenge(spnego.responseToken), creds);
    const crypto: SessionCrypto = { sessionId, signingKey: null, encryptionKey: null, decryptionKey: null, encryptData: false };
    const registerKeys = (finalRequest: Buffer): void => {
      hash?.update(finalRequest);
      const keys = deriveSessionKeys(conn.dialect, auth.sessionKey, hash?.digest ?? null);
      Object.assign(crypto, keys);
      conn.registerSession(crypto);
    };
    let r2: SmbResponse;
    try {
      const mechListMic = ntlmMic(auth.sessionKey, 'client-to-server', MECH_TYPES);
      r2 = await conn.request(sessionSetupRequest(negTokenResp({ responseToken: auth.message, mechListMic })), { sessionId, onWire: registerKeys });
    } catch (err) {
      conn.unregisterSession(sessionId);
      throw err;
    }
    const final = parseSessionSetupResponse(r2.reader);
    // The server's mechListMIC proves that the offered mechanism list arrived unchanged (older servers send none).
    const serverMic = final.securityBuffer.length > 0 ? serverNegTokenResp(final.securityBuffer).mechListMic : null;
    if (serverMic && !serverMic.equals(ntlmMic(auth.sessionKey, 'server-to-client', MECH_TYPES))) {
      conn.unregisterSession(sessionId);
      throw new SmbError('SIGNATURE_MISMATCH', 'the SPNEGO mechListMIC of the server is wrong: the logon was tampered with');
    }
    return Session.established(conn, creds, crypto, final.sessionFlags, 'ntlm');
  }

  /** Refuses guest sessions, settles encryption and registers the session's keys with the connection (again, for NTLM). */
  private static established(conn: Connection, creds: Credentials, crypto: SessionCrypto, flags: number, mechanism: 'kerberos' | 'ntlm', ticket?: Credential): Session {
    if (flags & (SessionFlags.IS_GUEST | SessionFlags.IS_NULL)) {
      conn.unregisterSession(crypto.sessionId);
      throw new SmbError('LOGON_FAILURE', `server logged ${creds.user} on as guest; signing is impossible`);
    }
    // Encrypting its requests makes the server encrypt its responses (MS-SMB2 3.3.4.1.4), whatever the session
    // flags say; the connection has already refused a server without a cipher.
    crypto.encryptData = conn.requireEncryption || ((flags & SessionFlags.ENCRYPT_DATA) !== 0 && conn.dialect >= Dialect.SMB300);
    conn.registerSession(crypto);
    return new Session(conn, crypto, mechanism, creds, ticket);
  }

  get sessionId(): bigint {
    return this.crypto.sessionId;
  }

  context(treeId = 0, encrypt = false): RequestContext {
    return { session: this.crypto, treeId, encrypt };
  }

  request(req: SmbRequest, ok: readonly number[] = []): Promise<SmbResponse> {
    return this.connection.request(req, this.context(), ok);
  }

  async logoff(): Promise<void> {
    if (this.loggedOff) return;
    this.loggedOff = true;
    clearTimeout(this.renewalTimer);
    try {
      await this.request(emptyRequest(Command.LOGOFF));
    } finally {
      this.connection.unregisterSession(this.sessionId);
    }
  }
}
