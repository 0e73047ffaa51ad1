/**
 * SMB2 session: NTLMv2-in-SPNEGO authentication (MS-SMB2 3.2.5.3), per-dialect key derivation, logoff.
 */
import { NtStatus, SmbError } from './errors.js';
import { Command, Dialect } from './header.js';
import { PreauthHash, deriveSessionKeys } from './crypto.js';
import { type Connection, type RequestContext, type SessionCrypto, type SmbResponse } from './connection.js';
import { SessionFlags, emptyRequest, parseSessionSetupResponse, sessionSetupRequest, type SmbRequest } from './messages.js';
import { authenticateMessage, negotiateMessage, ntlmMic, parseChallenge, type NtlmCredentials } from './ntlm.js';
import { MECH_TYPES, negTokenInit, negTokenResp, parseNegTokenResp, NegState } from './spnego.js';

export type Credentials = NtlmCredentials;

export class Session {
  private loggedOff = false;

  private constructor(
    readonly connection: Connection,
    readonly crypto: SessionCrypto,
  ) {}

  static async setup(conn: Connection, creds: Credentials): Promise<Session> {
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
    const spnego = parseNegTokenResp(parseSessionSetupResponse(r1.reader).securityBuffer);
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
      r2 = await conn.request(sessionSetupRequest(negTokenResp(auth.message, mechListMic)), { sessionId, onWire: registerKeys });
    } catch (err) {
      conn.unregisterSession(sessionId);
      throw err;
    }
    const final = parseSessionSetupResponse(r2.reader);
    const flags = final.sessionFlags;
    if (flags & (SessionFlags.IS_GUEST | SessionFlags.IS_NULL)) {
      conn.unregisterSession(sessionId);
      throw new SmbError('LOGON_FAILURE', `server logged ${creds.user} on as guest; signing is impossible`);
    }
    // The server's mechListMIC proves that the offered mechanism list arrived unchanged (older servers send none).
    const serverMic = final.securityBuffer.length > 0 ? parseNegTokenResp(final.securityBuffer).mechListMic : null;
    if (serverMic && !serverMic.equals(ntlmMic(auth.sessionKey, 'server-to-client', MECH_TYPES))) {
      conn.unregisterSession(sessionId);
      throw new SmbError('SIGNATURE_MISMATCH', 'the SPNEGO mechListMIC of the server is wrong: the logon was tampered with');
    }
    // Encrypting its requests makes the server encrypt its responses (MS-SMB2 3.3.4.1.4), whatever the session
    // flags say; the connection has already refused a server without a cipher.
    crypto.encryptData = conn.requireEncryption || ((flags & SessionFlags.ENCRYPT_DATA) !== 0 && conn.dialect >= Dialect.SMB300);
    return new Session(conn, crypto);
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
    try {
      await this.request(emptyRequest(Command.LOGOFF));
    } finally {
      this.connection.unregisterSession(this.sessionId);
    }
  }
}
