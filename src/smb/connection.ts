/**
 * One SMB2 connection: dialect negotiation, message ids and credits, signing / encryption of outgoing
 * messages, verification / decryption of incoming ones, compounding, timeouts and failure of in-flight
 * requests when the transport drops (MS-SMB2 3.2.4, 3.2.5).
 *
 * Every response is authenticated before anything in it is believed, its CreditResponse included
 * (MS-SMB2 3.2.5.1.3): a decrypted frame is authentic as a whole; otherwise a response to a request of a
 * session with keys must carry a valid signature. The spec's exceptions are the only unsigned answers
 * accepted: interim STATUS_PENDING responses (servers never sign them; they carry credits and nothing else)
 * and a failed SESSION_SETUP (no session key exists to sign it with; it can only end a logon). A response that
 * fails this check is refused: its request fails with SIGNATURE_MISMATCH (PROTOCOL_ERROR for a plain answer to
 * an encrypted request) and the connection is dropped, failing its other in-flight requests with the same
 * error, because its stream can no longer be trusted and the credits that response claimed are unknown. The
 * pool builds a fresh connection for the next operation.
 *
 * Requests the server may hold open (CHANGE_NOTIFY, MS-SMB2 3.2.5.1.5): the request timeout runs until the
 * interim STATUS_PENDING answer, which carries the async id and the credits of the request (3.3.4.1.2), so an
 * outstanding watch holds no credit and starves no other request; after it the request waits for its final answer,
 * however long, until it is cancelled (SMB2 CANCEL, which consumes no message id and no credit) or the connection
 * drops. While any request is held, one ECHO every `keepAliveMs` checks that the server still answers (as the session
 * of a held request, signed or encrypted as it was); an ECHO that times out closes the connection, which fails the
 * held requests. One for the connection, not one per held request: a client holding a watch on each of thousands of
 * folders sends one ECHO a minute, not thousands.
 */
import { randomBytes } from 'node:crypto';
import {
  NtStatus,
  SmbConnectionError,
  SmbError,
  SmbProtocolError,
  SmbStatusError,
  SmbTimeoutError,
  ntStatusName,
} from './errors.js';
import {
  ALL_DIALECTS,
  Command,
  DIALECT_BY_NAME,
  Dialect,
  HEADER_SIZE,
  HeaderFlags,
  frameKind,
  parseHeader,
  parseTransform,
  dialectName,
  splitCompound,
  writeRequestHeader,
  type DialectCode,
  type DialectName,
  type Smb2Header,
} from './header.js';
import { Cipher, PreauthHash, SigningAlgorithm, decryptMessage, dialectSigningAlgorithm, encryptMessage, signMessage, verifySignature, type CipherId, type SigningAlgorithmId } from './crypto.js';
import { Capabilities, negotiateRequest, parseNegotiateResponse, SecurityMode } from './messages/negotiate.js';
import { type BreakNotice, parseBreakNotice, UNSOLICITED_MESSAGE_ID } from './messages/oplock.js';
import type { SmbRequest } from './messages/request.js';
import { emptyRequest } from './messages/session.js';
import { Transport } from './transport.js';
import { WireReader, align8 } from './wire.js';

export interface ConnectionOptions {
  host: string;
  port?: number;
  /** Per-request timeout (default 30 s). */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Dialects offered (default: all of 2.0.2 .. 3.1.1); the server picks the highest common one. */
  dialects?: readonly DialectCode[];
  /** Dialects below this one are neither offered nor accepted (default: none is excluded). */
  minDialect?: DialectName;
  /** Encrypt every message of every session, refusing a server that cannot (default false). */
  requireEncryption?: boolean;
  /** While requests are held (CHANGE_NOTIFY), an ECHO this often notices a server that stopped answering (default 60 s). */
  keepAliveMs?: number;
}

/** Keys and policy of an authenticated session, registered so incoming frames can be checked. */
export interface SessionCrypto {
  sessionId: bigint;
  signingKey: Buffer | null;
  encryptionKey: Buffer | null;
  decryptionKey: Buffer | null;
  encryptData: boolean;
}

export interface RequestContext {
  session?: SessionCrypto;
  sessionId?: bigint;
  treeId?: number;
  /** Encrypt this request (share or session requires it). */
  encrypt?: boolean;
  /** Called with each serialized plain message before it is sent (pre-authentication hash). */
  onWire?: (message: Buffer) => void;
}

export interface SmbResponse {
  header: Smb2Header;
  /** The whole message (header + body); SMB2 offsets are relative to its start. */
  reader: WireReader;
  raw: Buffer;
}

/** How a request may wait for its answer (see the module comment). */
export interface HeldRequestOptions {
  /** No timeout once the server has answered STATUS_PENDING. */
  held?: boolean;
  /** Sends SMB2 CANCEL for the request; its final answer (usually STATUS_CANCELLED) still arrives. */
  signal?: AbortSignal;
  /** Called when the interim STATUS_PENDING answer arrives: the server is working on the request. */
  onInterim?: () => void;
}

interface Pending {
  command: number;
  /** Sent encrypted: the response must come encrypted too (no downgrade). */
  encrypted: boolean;
  /** SessionId of the request; its keys verify the response whatever the response header claims. */
  sessionId: bigint;
  treeId: number;
  /** From the interim answer, 0n until then; a CANCEL names it (MS-SMB2 3.2.4.24). */
  asyncId: bigint;
  held: boolean;
  onInterim: (() => void) | undefined;
  /**
   * Its caller gave up (timeout); the entry stays so that a late answer is still verified and its credits
   * granted. At most as many as the server granted credits, since unanswered requests return none.
   */
  abandoned: boolean;
  resolve(r: SmbResponse): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

const COMMAND_NAMES = new Map<number, string>(Object.entries(Command).map(([k, v]) => [v, k]));
const commandName = (c: number): string => COMMAND_NAMES.get(c) ?? `command 0x${c.toString(16)}`;

/** Credits the client tries to keep available so that many requests can be in flight. */
const CREDIT_TARGET = 512;
/** Largest READ/WRITE/QUERY payload we use (16 credits); bigger transfers are split. */
const MAX_IO_SIZE = 1024 * 1024;
/**
 * Signing algorithms offered to a 3.1.1 server, most preferred first: GMAC signs a large message for less CPU than
 * CMAC (bench/RESULTS.md, SMB client: one file of 64 MiB read on a signed session). A server that answers without
 * the signing context signs with CMAC, as 3.x always did.
 */
const SIGNING_ALGORITHMS_OFFERED: readonly SigningAlgorithmId[] = [SigningAlgorithm.AES_GMAC, SigningAlgorithm.AES_CMAC];
/** Responses can never legitimately be larger than one payload plus headers and a small compound. */
const MAX_RESPONSE_FRAME = MAX_IO_SIZE + 64 * 1024;

export function assertStatus(res: SmbResponse, what: string, ok: readonly number[] = []): void {
  const s = res.header.status;
  if (s !== NtStatus.SUCCESS && !ok.includes(s)) throw new SmbStatusError(s, what);
}

export class Connection {
  readonly host: string;
  readonly port: number;
  readonly requestTimeoutMs: number;
  readonly requireEncryption: boolean;
  readonly keepAliveMs: number;
  dialect: DialectCode = Dialect.SMB202;
  maxReadSize = 65536;
  maxWriteSize = 65536;
  maxTransactSize = 65536;
  serverSecurityMode = 0;
  serverCapabilities = 0;
  cipher: CipherId | 0 = 0;
  /** What messages are signed with: the dialect's algorithm, or the one 3.1.1's negotiation chose. */
  signingAlgorithm: SigningAlgorithmId = SigningAlgorithm.HMAC_SHA256;
  /** Connection-level pre-authentication hash after NEGOTIATE (3.1.1). */
  preauth: PreauthHash | null = null;
  readonly clientGuid = randomBytes(16);
  offeredDialects: readonly DialectCode[] = [];
  serverGuid: Buffer = Buffer.alloc(16);

  private transport: Transport | null = null;
  private readonly pending = new Map<bigint, Pending>();
  /** Message ids of the held requests among `pending`; the keep-alive runs while there are any. */
  private readonly held = new Set<bigint>();
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly sessions = new Map<bigint, SessionCrypto>();
  private nextMessageId = 0n;
  private credits = 1;
  private creditWaiters: { charge: number; resolve(): void; reject(e: Error): void; timer: NodeJS.Timeout }[] = [];
  private closeError: Error | null = null;
  private readonly closeListeners: ((e: Error) => void)[] = [];
  private readonly breakListeners = new Set<(notice: BreakNotice) => void>();

  private constructor(opts: ConnectionOptions) {
    this.host = opts.host;
    this.port = opts.port ?? 445;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.requireEncryption = opts.requireEncryption ?? false;
    this.keepAliveMs = opts.keepAliveMs ?? 60_000;
  }

  static async connect(opts: ConnectionOptions): Promise<Connection> {
    const conn = new Connection(opts);
    conn.transport = await Transport.connect(conn.host, conn.port, opts.connectTimeoutMs ?? conn.requestTimeoutMs, {
      onFrame: (f) => conn.onFrame(f),
      onClose: (e) => conn.onClose(e),
    });
    try {
      const lowest = DIALECT_BY_NAME[opts.minDialect ?? '2.0.2'];
      await conn.negotiate((opts.dialects ?? ALL_DIALECTS).filter((d) => d >= lowest));
    } catch (err) {
      conn.close();
      throw err;
    }
    return conn;
  }

  get isClosed(): boolean {
    return this.closeError !== null;
  }

  get localPort(): number | undefined {
    return this.transport?.localPort;
  }

  get signingRequired(): boolean {
    return (this.serverSecurityMode & SecurityMode.SIGNING_REQUIRED) !== 0;
  }

  onceClosed(listener: (e: Error) => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * Calls `listener` with each oplock or lease break the server sends on this connection, until the returned function
   * is called. Only opens that asked for an oplock or a lease (CreateParams.oplockLevel) get breaks; the server holds
   * the conflicting open of another client until the holder acknowledges (messages/oplock.ts) or its timeout ends.
   */
  onBreak(listener: (notice: BreakNotice) => void): () => void {
    this.breakListeners.add(listener);
    return () => this.breakListeners.delete(listener);
  }

  registerSession(s: SessionCrypto): void {
    this.sessions.set(s.sessionId, s);
  }

  unregisterSession(sessionId: bigint): void {
    this.sessions.delete(sessionId);
  }

  private async negotiate(dialects: readonly DialectCode[]): Promise<void> {
    if (dialects.length === 0) throw new SmbError('INVALID_ARGUMENT', 'no SMB dialect offered');
    const hash = new PreauthHash();
    this.offeredDialects = dialects;
    const req = negotiateRequest(dialects, this.clientGuid, [Cipher.AES_128_GCM, Cipher.AES_128_CCM], SIGNING_ALGORITHMS_OFFERED);
    const res = await this.request(req, { onWire: (m) => hash.update(m) });
    const neg = parseNegotiateResponse(res.reader);
    if (!dialects.includes(neg.dialect as DialectCode)) {
      throw new SmbProtocolError(`server selected dialect 0x${neg.dialect.toString(16)} which was not offered`);
    }
    this.dialect = neg.dialect as DialectCode;
    this.serverSecurityMode = neg.securityMode;
    this.serverCapabilities = neg.capabilities;
    this.serverGuid = neg.serverGuid;
    this.signingAlgorithm = dialectSigningAlgorithm(this.dialect);
    const largeMtu = this.dialect >= Dialect.SMB210 && (neg.capabilities & Capabilities.LARGE_MTU) !== 0;
    const cap = (n: number): number => Math.max(4096, Math.min(n, largeMtu ? MAX_IO_SIZE : 65536));
    this.maxReadSize = cap(neg.maxReadSize);
    this.maxWriteSize = cap(neg.maxWriteSize);
    this.maxTransactSize = cap(neg.maxTransactSize);
    this.transport!.maxFrameSize = MAX_RESPONSE_FRAME;
    if (this.dialect === Dialect.SMB311) {
      hash.update(res.raw);
      this.preauth = hash;
      if (neg.cipher === Cipher.AES_128_CCM || neg.cipher === Cipher.AES_128_GCM) this.cipher = neg.cipher;
      if (neg.signingAlgorithm !== undefined) {
        const chosen = SIGNING_ALGORITHMS_OFFERED.find((id) => id === neg.signingAlgorithm);
        if (chosen === undefined) throw new SmbProtocolError(`server selected signing algorithm ${neg.signingAlgorithm}, which was not offered`);
        this.signingAlgorithm = chosen;
      }
    } else if (this.dialect >= Dialect.SMB300 && neg.capabilities & Capabilities.ENCRYPTION) {
      this.cipher = Cipher.AES_128_CCM;
    }
    if (this.requireEncryption && !this.cipher) {
      throw new SmbError(
        'NOT_SUPPORTED',
        `${this.host} negotiated SMB ${dialectName(this.dialect)} without encryption, but encryption is required (it needs SMB 3.x with encryption enabled)`,
      );
    }
  }

  private creditCharge(req: SmbRequest): number {
    if (this.dialect < Dialect.SMB210) return 1;
    return Math.max(1, Math.ceil((req.payloadSize ?? 0) / 65536));
  }

  private acquireCredits(charge: number): Promise<void> {
    if (this.closeError) return Promise.reject(this.closeError);
    if (this.creditWaiters.length === 0 && this.credits >= charge) {
      this.credits -= charge;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        charge,
        resolve,
        reject,
        // A server that stops granting credits must not stall callers forever.
        timer: setTimeout(() => {
          this.creditWaiters.splice(this.creditWaiters.indexOf(waiter), 1);
          reject(new SmbTimeoutError(`no SMB credits granted within ${this.requestTimeoutMs} ms`));
        }, this.requestTimeoutMs),
      };
      this.creditWaiters.push(waiter);
    });
  }

  private grantCredits(n: number): void {
    this.credits += n;
    while (this.creditWaiters.length > 0 && this.credits >= this.creditWaiters[0]!.charge) {
      const w = this.creditWaiters.shift()!;
      clearTimeout(w.timer);
      this.credits -= w.charge;
      w.resolve();
    }
  }

  /** Sends one request and waits for its final response; a failing status throws SmbStatusError. */
  async request(req: SmbRequest, ctx: RequestContext = {}, okStatus: readonly number[] = []): Promise<SmbResponse> {
    const [res] = await this.compound([req], ctx);
    assertStatus(res!, commandName(req.command), okStatus);
    return res!;
  }

  /**
   * Sends requests as one compound chain (related: later ones act on the FileId of the first CREATE) and
   * returns every response, whatever its status.
   */
  compound(reqs: readonly SmbRequest[], ctx: RequestContext = {}, held: HeldRequestOptions = {}): Promise<SmbResponse[]> {
    return this.sendCompound(reqs, reqs.map((_, i) => i > 0), ctx, held);
  }

  /**
   * Sends several related chains in one compound message (MS-SMB2 3.2.4.1.4): each chain's first request is
   * unrelated, its others act on the FileId of that one's CREATE. One frame and one round trip for all of them, where
   * each chain alone would take its own; the server answers each chain as if it came alone. Returns each chain's
   * responses, whatever their status.
   */
  async compoundChains(chains: readonly (readonly SmbRequest[])[], ctx: RequestContext = {}): Promise<SmbResponse[][]> {
    const responses = await this.sendCompound(chains.flat(), chains.flatMap((chain) => chain.map((_, i) => i > 0)), ctx, {});
    let at = 0;
    return chains.map((chain) => responses.slice(at, (at += chain.length)));
  }

  /** Sends `reqs` as one compound message, each flagged related (acting on the FileId before it) where `related` says. */
  private async sendCompound(reqs: readonly SmbRequest[], related: readonly boolean[], ctx: RequestContext, held: HeldRequestOptions): Promise<SmbResponse[]> {
    const charges = reqs.map((r) => this.creditCharge(r));
    const total = charges.reduce((a, b) => a + b, 0);
    await this.acquireCredits(total);
    if (this.closeError) throw this.closeError;
    const session = ctx.session;
    const sessionId = session?.sessionId ?? ctx.sessionId ?? 0n;
    const encrypt = !!session && (ctx.encrypt || session.encryptData);
    if (encrypt && (!session.encryptionKey || !this.cipher)) {
      this.grantCredits(total);
      throw new SmbError('NOT_SUPPORTED', 'encryption is required but no cipher was negotiated');
    }
    const sign = !encrypt && !!session?.signingKey;
    const grow = this.credits + this.pending.size < CREDIT_TARGET ? 64 : 0;
    const parts: Buffer[] = [];
    const ids: bigint[] = [];
    reqs.forEach((req, i) => {
      const size = HEADER_SIZE + req.body.length;
      const padded = i < reqs.length - 1 ? align8(size) : size;
      const msg = Buffer.alloc(padded);
      const messageId = this.nextMessageId;
      this.nextMessageId += BigInt(charges[i]!);
      ids.push(messageId);
      writeRequestHeader(msg, {
        command: req.command,
        creditCharge: this.dialect >= Dialect.SMB210 && req.command !== Command.NEGOTIATE ? charges[i]! : 0,
        creditRequest: charges[i]! + (i === reqs.length - 1 ? grow : 0),
        flags: (related[i] ? HeaderFlags.RELATED_OPERATIONS : 0) | (sign ? HeaderFlags.SIGNED : 0),
        messageId,
        treeId: ctx.treeId ?? 0,
        sessionId,
      });
      req.body.copy(msg, HEADER_SIZE);
      if (i < reqs.length - 1) msg.writeUInt32LE(padded, 20);
      if (sign) signMessage(this.signingAlgorithm, session.signingKey!, msg);
      ctx.onWire?.(msg);
      parts.push(msg);
    });
    const plain = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const wire = encrypt ? encryptMessage(this.cipher as CipherId, session.encryptionKey!, sessionId, plain) : plain;
    const responses = ids.map(
      (id, i) =>
        new Promise<SmbResponse>((resolve, reject) => {
          const timer = setTimeout(() => {
            const p = this.pending.get(id);
            if (p) p.abandoned = true;
            reject(new SmbTimeoutError(`${commandName(reqs[i]!.command)} timed out after ${this.requestTimeoutMs} ms`));
          }, this.requestTimeoutMs);
          this.pending.set(id, {
            command: reqs[i]!.command,
            encrypted: encrypt,
            sessionId,
            treeId: ctx.treeId ?? 0,
            asyncId: 0n,
            held: held.held ?? false,
            onInterim: held.onInterim,
            abandoned: false,
            resolve,
            reject,
            timer,
          });
          if (held.held) this.holdOpen(id);
        }),
    );
    try {
      this.transport!.send(wire);
    } catch (err) {
      for (const id of ids) this.failPending(id, err as Error);
    }
    const { signal } = held;
    if (!signal) return Promise.all(responses);
    const cancel = (): void => ids.forEach((id) => this.cancel(id));
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    try {
      return await Promise.all(responses);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * SMB2 CANCEL of an outstanding request (MS-SMB2 3.2.4.24): same message id and session, the async id once the
   * server gave one, signed or encrypted as the request was. It takes no message id or credit and has no answer of its
   * own; the request's answer tells how it ended.
   */
  private cancel(messageId: bigint): void {
    const p = this.pending.get(messageId);
    const session = p && this.sessions.get(p.sessionId);
    // No request to cancel, or no key left to send it as the request was sent (the session logged off).
    if (!p || this.closeError || (p.encrypted && !session?.encryptionKey)) return;
    const req = emptyRequest(Command.CANCEL);
    const msg = Buffer.alloc(HEADER_SIZE + req.body.length);
    const sign = !p.encrypted && !!session?.signingKey;
    writeRequestHeader(msg, {
      command: Command.CANCEL,
      creditCharge: 0,
      creditRequest: 0,
      flags: (p.asyncId !== 0n ? HeaderFlags.ASYNC_COMMAND : 0) | (sign ? HeaderFlags.SIGNED : 0),
      messageId,
      treeId: p.treeId,
      sessionId: p.sessionId,
      asyncId: p.asyncId,
    });
    req.body.copy(msg, HEADER_SIZE);
    if (sign) signMessage(this.signingAlgorithm, session.signingKey!, msg);
    try {
      this.transport!.send(p.encrypted ? encryptMessage(this.cipher as CipherId, session!.encryptionKey!, p.sessionId, msg) : msg);
    } catch (err) {
      this.transport?.destroy(err instanceof SmbError ? err : new SmbConnectionError('CANCEL could not be sent', err));
    }
  }

  async echo(): Promise<void> {
    await this.request(emptyRequest(Command.ECHO));
  }

  close(): void {
    this.transport?.destroy(new SmbConnectionError('SMB connection closed by the client'));
  }

  private failPending(id: bigint, err: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.forget(id);
    p.reject(err);
  }

  /** A held request is outstanding: the keep-alive runs (see the module comment). */
  private holdOpen(id: bigint): void {
    this.held.add(id);
    if (this.keepAlive !== undefined) return;
    this.keepAlive = setInterval(() => this.checkServer(), this.keepAliveMs);
    this.keepAlive.unref();
  }

  /** A request has its answer (or failed): it is no longer pending, and the keep-alive stops with the last held one. */
  private forget(id: bigint): void {
    this.pending.delete(id);
    if (!this.held.delete(id) || this.held.size > 0) return;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  /** One ECHO as the session of a held request, which closes the connection if the server does not answer it in time. */
  private checkServer(): void {
    const id = this.held.values().next().value;
    const p = id === undefined ? undefined : this.pending.get(id);
    if (p === undefined) return;
    const session = this.sessions.get(p.sessionId);
    if (p.sessionId !== 0n && session === undefined) return; // logged off: its requests end with the session
    this.request(emptyRequest(Command.ECHO), { session, sessionId: p.sessionId, encrypt: p.encrypted }).catch((err: unknown) => {
      if (err instanceof SmbError && err.code === 'TIMEOUT') {
        this.transport?.destroy(new SmbConnectionError(`the server did not answer a keep-alive ECHO within ${this.requestTimeoutMs} ms`, err));
      }
    });
  }

  private onClose(error: Error): void {
    if (this.closeError) return;
    this.closeError = error;
    for (const id of [...this.pending.keys()]) this.failPending(id, error);
    for (const w of this.creditWaiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    for (const l of this.closeListeners.splice(0)) l(error);
  }

  /** Frames that cannot be attributed to a request poison the connection; others fail only their request. */
  private onFrame(frame: Buffer): void {
    try {
      const kind = frameKind(frame);
      if (kind === 'transform') {
        const t = parseTransform(frame);
        const s = this.sessions.get(t.sessionId);
        if (!s?.decryptionKey || !this.cipher) throw new SmbProtocolError('encrypted message for an unknown session');
        this.onPlainMessage(decryptMessage(this.cipher, s.decryptionKey, t), true);
      } else if (kind === 'smb2') {
        this.onPlainMessage(frame, false);
      } else {
        throw new SmbProtocolError(`unsupported frame type '${kind}'`);
      }
    } catch (err) {
      this.transport?.destroy(err instanceof SmbError ? err : new SmbProtocolError(String(err)));
    }
  }

  private onPlainMessage(frame: Buffer, decrypted: boolean): void {
    for (const raw of splitCompound(frame)) {
      const reader = new WireReader(raw, 'SMB2 response');
      const header = parseHeader(reader);
      if (!(header.flags & HeaderFlags.SERVER_TO_REDIR)) throw new SmbProtocolError('received a request instead of a response');
      if (header.messageId === UNSOLICITED_MESSAGE_ID && header.command === Command.OPLOCK_BREAK) {
        // Unsigned by design (MS-SMB2 3.2.5.1.3 exempts it from verification): it can only ask a holder to give up a cache.
        const notice = parseBreakNotice(reader);
        for (const listener of this.breakListeners) listener(notice);
        continue;
      }
      const p = this.pending.get(header.messageId);
      if (!p) continue; // an answer to nothing we sent: nothing in it can be verified or used
      const forged = this.authenticityProblem(p, header, raw, decrypted);
      if (forged) throw forged; // onFrame drops the connection
      this.grantCredits(header.credits);
      if (isInterim(header)) {
        p.asyncId = header.asyncId;
        if (p.held) clearTimeout(p.timer);
        if (!p.abandoned) p.onInterim?.();
        continue;
      }
      clearTimeout(p.timer);
      this.forget(header.messageId);
      if (p.abandoned) continue;
      if (header.command !== p.command) {
        p.reject(new SmbProtocolError(`response to ${commandName(p.command)} carries ${commandName(header.command)}`));
      } else if (p.sessionId !== 0n && header.sessionId !== p.sessionId) {
        p.reject(new SmbProtocolError(`${commandName(header.command)} response names another session`));
      } else {
        p.resolve({ header, reader, raw });
      }
    }
  }

  /**
   * Why a response must not be believed, or null (MS-SMB2 3.2.5.1.3, see the module comment). The keys are
   * those of the request's session, whatever session the response names.
   */
  private authenticityProblem(p: Pending, header: Smb2Header, raw: Buffer, decrypted: boolean): SmbError | null {
    if (decrypted) return null;
    const what = `${commandName(header.command)} response (${ntStatusName(header.status)})`;
    if (p.encrypted && !isInterim(header)) return new SmbProtocolError(`${what} to an encrypted request came in plain text`);
    const signingKey = this.sessions.get(p.sessionId)?.signingKey;
    if (!signingKey) return null; // NEGOTIATE, the first SESSION_SETUP leg, requests without a session
    if (header.flags & HeaderFlags.SIGNED) {
      return verifySignature(this.signingAlgorithm, signingKey, raw) ? null : new SmbError('SIGNATURE_MISMATCH', `${what} has an invalid signature`);
    }
    if (isInterim(header)) return null;
    if (header.command === Command.SESSION_SETUP && header.status !== NtStatus.SUCCESS) return null;
    return new SmbError('SIGNATURE_MISMATCH', `${what} is not signed in a signed session`);
  }
}

/** An interim response: the server works on the request asynchronously, the final response follows. */
const isInterim = (header: Smb2Header): boolean => header.status === NtStatus.PENDING && (header.flags & HeaderFlags.ASYNC_COMMAND) !== 0;
