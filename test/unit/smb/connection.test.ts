/**
 * Connection logic against a scripted in-process TCP peer: credits and message ids, signature checks,
 * timeouts, malformed frames and dropped connections.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, Socket, type Server } from 'node:net';
import { Connection, type ConnectionOptions } from '../../../src/smb/connection.js';
import { SigningAlgorithm, signMessage, verifySignature, type SigningAlgorithmId } from '../../../src/smb/crypto.js';
import { Command, Dialect, splitCompound } from '../../../src/smb/header.js';
import { changeNotifyRequest } from '../../../src/smb/messages/change-notify.js';
import { readRequest } from '../../../src/smb/messages/read-write.js';
import { FrameDecoder } from '../../../src/smb/transport.js';
import { NtStatus, SmbError } from '../../../src/smb/errors.js';
import { breakNotice, negotiateResponse, prng, readResponse, responseHeader } from './frames.js';

interface Request {
  command: number;
  messageId: bigint;
  creditCharge: number;
  creditRequest: number;
  sessionId: bigint;
  flags: number;
  /** AsyncId when flags has ASYNC_COMMAND. */
  asyncId: bigint;
  /** The request as it came, for checking its signature. */
  frame: Buffer;
}

type Handler = (req: Request, socket: Socket) => void;

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

function send(socket: Socket, msg: Buffer): void {
  const prefix = Buffer.alloc(4);
  prefix.writeUIntBE(msg.length, 1, 3);
  socket.write(Buffer.concat([prefix, msg]));
}

interface PeerOptions extends Pick<ConnectionOptions, 'minDialect' | 'requireEncryption' | 'keepAliveMs'> {
  /** The NEGOTIATE answer, given the dialects the client offered (default: 3.1.1 with AES-128-GCM). */
  negotiate?: (messageId: bigint, offered: number[]) => Buffer;
}

/** A peer that answers NEGOTIATE itself and hands every other request (each of a compound) to `handler`. */
async function peer(handler: Handler, requestTimeoutMs = 300, options: PeerOptions = {}): Promise<Connection> {
  const server = createServer((socket) => {
    const decoder = new FrameDecoder();
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      for (const f of decoder.push(chunk).flatMap(splitCompound)) {
        const req: Request = {
          command: f.readUInt16LE(12),
          messageId: f.readBigUInt64LE(24),
          creditCharge: f.readUInt16LE(6),
          creditRequest: f.readUInt16LE(14),
          sessionId: f.readBigUInt64LE(40),
          flags: f.readUInt32LE(16),
          asyncId: f.readBigUInt64LE(32),
          frame: f,
        };
        if (req.command === Command.NEGOTIATE) {
          const offered = Array.from({ length: f.readUInt16LE(64 + 2) }, (_, i) => f.readUInt16LE(64 + 36 + 2 * i));
          send(socket, options.negotiate ? options.negotiate(req.messageId, offered) : negotiateResponse(req.messageId));
        }
        else handler(req, socket);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const { minDialect, requireEncryption, keepAliveMs } = options;
  const dialects = options.negotiate ? undefined : [Dialect.SMB311];
  // The TCP connect gets a time of its own: `requestTimeoutMs` is short for the tests of request timeouts, and on a
  // busy machine a connect to loopback took longer (a CI-style run: "connecting timed out after 300 ms").
  return Connection.connect({ host: '127.0.0.1', port, requestTimeoutMs, connectTimeoutMs: 10_000, dialects, minDialect, requireEncryption, keepAliveMs });
}

function echoResponse(req: Request, credits = 1, flags = 0, status = 0): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt16LE(4, 0);
  return Buffer.concat([responseHeader(req.command, req.messageId, status, { credits, flags, sessionId: req.sessionId }), body]);
}

const key = Buffer.alloc(16, 9);
const SIGNED = 0x8;
/**
 * An answer to `req` signed with the session key (flag and signature), as the server of a signed session sends: with
 * AES-CMAC, as 3.1.1 signs when the negotiation chose no algorithm (the peer's NEGOTIATE answer names none).
 */
function signedResponse(req: Request, credits = 1, status = 0, algorithm: SigningAlgorithmId = SigningAlgorithm.AES_CMAC): Buffer {
  const res = echoResponse(req, credits, SIGNED, status);
  signMessage(algorithm, key, res);
  return res;
}

const session = (signingKey: Buffer | null) => ({ sessionId: 7n, signingKey, encryptionKey: null, decryptionKey: null, encryptData: false });
const echo = { command: Command.ECHO, body: Buffer.from([4, 0, 0, 0]) } as const;
const signedEcho = (conn: Connection): Promise<unknown> => conn.request(echo, { session: session(key) });

test('several related chains go in one compound message, each chain\'s first request unrelated; the answers come back by chain', async () => {
  const RELATED = 0x4;
  const seen: Request[] = [];
  const conn = await peer((req, socket) => {
    seen.push(req);
    send(socket, echoResponse(req, 1));
  });
  try {
    const answers = await conn.compoundChains([[echo, echo, echo], [echo], [echo, echo]]);
    assert.deepEqual(answers.map((chain) => chain.length), [3, 1, 2]);
    assert.deepEqual(seen.map((req) => (req.flags & RELATED) !== 0), [false, true, true, false, false, true]);
    assert.deepEqual(answers.flat().map((res) => res.header.messageId), seen.map((req) => req.messageId));
    await conn.compound([echo, echo]);
    assert.deepEqual(seen.slice(6).map((req) => (req.flags & RELATED) !== 0), [false, true], 'one chain as before');
  } finally {
    conn.close();
  }
});

test('messages sent in one turn of the event loop leave in one write to the socket', async () => {
  const frames: number[] = [];
  const conn = await peer((req, socket) => {
    frames.push(Number(req.messageId));
    send(socket, echoResponse(req, 1));
  });
  // Each write of queued chunks is one call of the socket's _writev (one syscall): count the client's (those to the
  // peer's port) around the sends.
  const peerPort = (servers.at(-1)!.address() as { port: number }).port;
  const writev = Socket.prototype._writev!;
  let writes = 0;
  Socket.prototype._writev = function (this: Socket, ...args: Parameters<typeof writev>) {
    if (this.remotePort === peerPort) writes++;
    return writev.apply(this, args);
  };
  try {
    await Promise.all([conn.request(echo), conn.request(echo), conn.compound([echo, echo])]);
    assert.equal(frames.length, 4);
    assert.equal(writes, 1, 'three messages, one write');
  } finally {
    Socket.prototype._writev = writev;
    conn.close();
  }
});

test('credits: never more requests outstanding than granted; multi-credit READs consume several message ids', async () => {
  let outstanding = 0;
  let granted = 64; // the negotiate response granted 64 credits
  let maxSeen = 0;
  const ids: bigint[] = [];
  const conn = await peer((req, socket) => {
    outstanding += Math.max(1, req.creditCharge);
    maxSeen = Math.max(maxSeen, outstanding);
    assert.ok(outstanding <= granted, `${outstanding} outstanding with ${granted} credits`);
    ids.push(req.messageId);
    setTimeout(() => {
      outstanding -= Math.max(1, req.creditCharge);
      granted -= Math.max(1, req.creditCharge);
      granted += 1; // stingy server: one credit back per response
      if (req.command === Command.READ) send(socket, readResponse(req.messageId, Buffer.alloc(200_000, 1)));
      else send(socket, echoResponse(req, 1));
    }, 2);
  });
  try {
    await Promise.all(Array.from({ length: 100 }, () => conn.request(echo)));
    assert.ok(maxSeen <= 64);
    const read = await conn.request(readRequest(Buffer.alloc(16), 0, 200_000));
    assert.equal(read.header.command, Command.READ);
    const readId = ids.at(-1)!;
    await conn.request(echo);
    assert.equal(ids.at(-1)! - readId, 4n, 'a 200 kB READ is charged 4 credits');
  } finally {
    conn.close();
  }
});

/** A signed-session peer whose first answer is `first`; later requests are answered correctly. */
async function signedPeer(first: (req: Request) => Buffer): Promise<Connection> {
  let answered = 0;
  const conn = await peer((req, socket) => send(socket, answered++ === 0 ? first(req) : signedResponse(req)));
  conn.registerSession(session(key));
  return conn;
}

test('signed sessions: a correct signature passes; a wrong one, or none, is SIGNATURE_MISMATCH and drops the connection', async () => {
  const cases: [string, (req: Request) => Buffer][] = [
    ['bad signature', (req) => {
      const res = signedResponse(req);
      res[60] ^= 1;
      return res;
    }],
    ['unsigned success', (req) => echoResponse(req)],
    ['unsigned error status', (req) => echoResponse(req, 1, 0, NtStatus.ACCESS_DENIED)],
    ['unsigned error status with the signed flag', (req) => echoResponse(req, 1, SIGNED, NtStatus.OBJECT_NAME_NOT_FOUND)],
  ];
  for (const [label, first] of cases) {
    const conn = await signedPeer(first);
    try {
      const other = signedEcho(conn);
      await assert.rejects(signedEcho(conn), { code: 'SIGNATURE_MISMATCH' }, label);
      await assert.rejects(other, { code: 'SIGNATURE_MISMATCH' }, `${label}: the other in-flight request fails too`);
      assert.equal(conn.isClosed, true, label);
    } finally {
      conn.close();
    }
  }
  const good = await signedPeer((req) => signedResponse(req, 1, NtStatus.ACCESS_DENIED));
  try {
    await assert.rejects(signedEcho(good), { code: 'ACCESS_DENIED' }, 'a signed error is an ordinary error');
    await signedEcho(good);
  } finally {
    good.close();
  }
});

test('signed sessions: a correctly signed answer naming another session is refused', async () => {
  const conn = await signedPeer((req) => {
    const res = echoResponse(req, 1, SIGNED);
    res.writeBigUInt64LE(0n, 40); // a session without keys must not dodge the check
    signMessage(SigningAlgorithm.AES_CMAC, key, res);
    return res;
  });
  try {
    await assert.rejects(signedEcho(conn), { code: 'PROTOCOL_ERROR' });
    await signedEcho(conn);
  } finally {
    conn.close();
  }
});

test('signed sessions: unsigned interim responses and an unsigned failed SESSION_SETUP are the accepted exceptions', async () => {
  const conn = await peer((req, socket) => {
    if (req.command === Command.SESSION_SETUP) {
      send(socket, echoResponse(req, 1, 0, NtStatus.LOGON_FAILURE));
      return;
    }
    const interim = echoResponse(req, 1, 0x2, NtStatus.PENDING); // ASYNC_COMMAND, unsigned
    send(socket, interim);
    setTimeout(() => send(socket, signedResponse(req)), 20);
  });
  conn.registerSession(session(key));
  try {
    await signedEcho(conn);
    const setup = { command: Command.SESSION_SETUP, body: Buffer.alloc(24) } as const;
    await assert.rejects(conn.request(setup, { session: session(key) }), { code: 'LOGON_FAILURE' });
    assert.equal(conn.isClosed, false);
  } finally {
    conn.close();
  }
});

test('an oplock or lease break notice reaches the listeners until they stop listening; it neither answers a request nor drops the connection', async () => {
  const key = Buffer.alloc(16, 0x42);
  const conn = await peer((req, socket) => {
    send(socket, breakNotice({ key, from: 7, to: 3 }));
    send(socket, echoResponse(req));
  });
  try {
    const notices: unknown[] = [];
    const stop = conn.onBreak((notice) => notices.push(notice));
    await conn.echo();
    stop();
    await conn.echo();
    assert.deepEqual(notices, [{ kind: 'lease', key, from: 7, to: 3, ackRequired: true }]);
    assert.equal(conn.isClosed, false);
  } finally {
    conn.close();
  }
});

test('credits come only from verified responses', async () => {
  let received = 0;
  let hold = false;
  const conn = await peer((req, socket) => {
    received++;
    if (hold) return;
    // A forged unsolicited answer offering 500 credits precedes the real one.
    send(socket, echoResponse({ ...req, messageId: 1000n }, 500));
    send(socket, signedResponse(req));
  });
  conn.registerSession(session(key));
  try {
    await signedEcho(conn);
    hold = true;
    const held = Array.from({ length: 100 }, () => signedEcho(conn).catch(() => undefined));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(received - 1, 64, 'only the 64 credits of NEGOTIATE may be used');
    conn.close();
    await Promise.all(held);
  } finally {
    conn.close();
  }
});

test('a late but verified answer to a timed-out request returns its credits; a forged one drops the connection', async () => {
  const late: Request[] = [];
  let sock: Socket | undefined;
  let received = 0;
  const conn = await peer((req, socket) => {
    received++;
    sock = socket;
    late.push(req);
  });
  conn.registerSession(session(key));
  try {
    await assert.rejects(signedEcho(conn), { code: 'TIMEOUT' });
    send(sock!, signedResponse(late.shift()!, 2));
    await new Promise((r) => setTimeout(r, 20));
    received = 0;
    const held = Array.from({ length: 100 }, () => signedEcho(conn).catch(() => undefined));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(received, 65, '64 credits of NEGOTIATE, one spent on the timed-out request, two returned late');
    send(sock!, echoResponse(late.shift()!, 1));
    await Promise.all(held);
    assert.equal(conn.isClosed, true, 'an unsigned answer, even to an abandoned request, is refused');
  } finally {
    conn.close();
  }
});

test('a request without answer times out; a late answer is ignored', async () => {
  const conn = await peer((req, socket) => setTimeout(() => send(socket, echoResponse(req)), 500));
  try {
    await assert.rejects(conn.request(echo), { code: 'TIMEOUT' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(conn.isClosed, false);
  } finally {
    conn.close();
  }
});

test('a malformed frame poisons the connection: in-flight requests fail with PROTOCOL_ERROR', async () => {
  const conn = await peer((_req, socket) => send(socket, Buffer.from('garbage that is no SMB2 frame at all')));
  await assert.rejects(conn.request(echo), { code: 'PROTOCOL_ERROR' });
  assert.equal(conn.isClosed, true);
  await assert.rejects(conn.request(echo), { code: 'PROTOCOL_ERROR' });
});

test('a dropped connection fails in-flight requests with CONNECTION_CLOSED', async () => {
  const conn = await peer((_req, socket) => socket.destroy());
  await assert.rejects(Promise.all([conn.request(echo), conn.request(echo)]), { code: 'CONNECTION_CLOSED' });
});

test('300 mutated responses: every request settles with a response or an SmbError', async () => {
  const rnd = prng(7);
  let conn: Connection | null = null;
  for (let i = 0; i < 300; i++) {
    try {
      // The short timeout also bounds the NEGOTIATE of a new connection: on a loaded machine that may time out
      // too, and is an SmbError like any other outcome here.
      if (!conn || conn.isClosed) {
        conn = await peer((req, socket) => {
          const res = echoResponse(req, 1);
          const flips = 1 + Math.floor(rnd() * 4);
          for (let k = 0; k < flips; k++) res[Math.floor(rnd() * res.length)] = Math.floor(rnd() * 256);
          send(socket, rnd() < 0.2 ? res.subarray(0, Math.floor(rnd() * res.length)) : res);
        }, 50);
      }
      await conn.request(echo);
    } catch (err) {
      assert.ok(err instanceof SmbError, String(err));
    }
  }
  conn?.close();
});

test('a server that stops granting credits makes waiting requests time out instead of hang', async () => {
  const conn = await peer((req, socket) => send(socket, echoResponse(req, 0)));
  try {
    const results = await Promise.allSettled(Array.from({ length: 70 }, () => conn.request(echo)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 64, 'the 64 credits of NEGOTIATE');
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as SmbError).code, 'TIMEOUT');
  } finally {
    conn.close();
  }
});

test('a frame larger than any legitimate response is refused before it is buffered', async () => {
  const conn = await peer((_req, socket) => socket.write(Buffer.from([0, 0x20, 0, 0])));
  await assert.rejects(conn.request(echo), { code: 'PROTOCOL_ERROR' });
});

test('minDialect: lower dialects are not offered, and a server choosing one anyway is refused', async () => {
  let offered: number[] = [];
  const connect = (dialect: number): Promise<Connection> =>
    peer(() => undefined, 300, {
      minDialect: '3.0',
      negotiate: (id, list) => {
        offered = list;
        return negotiateResponse(id, dialect);
      },
    });
  const conn = await connect(Dialect.SMB302);
  conn.close();
  assert.equal(conn.dialect, Dialect.SMB302);
  assert.deepEqual(offered, [Dialect.SMB300, Dialect.SMB302, Dialect.SMB311]);
  await assert.rejects(connect(Dialect.SMB210), { code: 'PROTOCOL_ERROR', message: /not offered/ });
});

test('requireEncryption: a server that negotiates no cipher is refused before any logon', async () => {
  const connect = (negotiate: (id: bigint) => Buffer): Promise<Connection> => peer(() => undefined, 300, { requireEncryption: true, negotiate });
  await assert.rejects(connect((id) => negotiateResponse(id, Dialect.SMB311, false)), { code: 'NOT_SUPPORTED', message: /3\.1\.1 without encryption/ });
  await assert.rejects(connect((id) => negotiateResponse(id, Dialect.SMB210)), { code: 'NOT_SUPPORTED', message: /2\.1 without encryption/ });
  const conn = await connect((id) => negotiateResponse(id));
  conn.close();
  assert.equal(conn.requireEncryption, true);
});

const ASYNC = 0x2;
/** An interim STATUS_PENDING answer with an async id, unsigned as servers send it. */
function interimResponse(req: Request, asyncId: bigint, credits = 1): Buffer {
  const res = echoResponse(req, credits, ASYNC, NtStatus.PENDING);
  res.writeBigUInt64LE(asyncId, 32);
  return res;
}

test('a held request (CHANGE_NOTIFY): no timeout after the interim answer, whose credits count; its final answer comes with the async id', async () => {
  let notify: Request | undefined;
  let socketOf: Socket | undefined;
  const conn = await peer((req, socket) => {
    if (req.command === Command.CHANGE_NOTIFY) {
      notify = req;
      socketOf = socket;
      send(socket, interimResponse(req, 0x77n, 8)); // the request's credit and more, granted at once
    } else send(socket, echoResponse(req, 1));
  }, 100);
  try {
    let interims = 0;
    const held = conn.compound([changeNotifyRequest(Buffer.alloc(16), 1, true, 4096)], {}, { held: true, onInterim: () => interims++ });
    await new Promise((resolve) => setTimeout(resolve, 300)); // three request timeouts
    assert.equal(interims, 1);
    // Other requests flow meanwhile: the held one took no credit for good.
    await Promise.all(Array.from({ length: 70 }, () => conn.request(echo)));
    const final = echoResponse(notify!, 0, ASYNC, NtStatus.NOTIFY_ENUM_DIR);
    final.writeBigUInt64LE(0x77n, 32);
    send(socketOf!, final);
    const [res] = await held;
    assert.equal(res!.header.status, NtStatus.NOTIFY_ENUM_DIR);
    assert.equal(res!.header.asyncId, 0x77n);
  } finally {
    conn.close();
  }
});

/**
 * A peer that records every request, holds CHANGE_NOTIFY (answering STATUS_PENDING with `asyncId`, or not at all
 * when it is null) and answers a CANCEL by completing the held request with STATUS_CANCELLED.
 */
function cancellablePeer(seen: Request[], asyncId: bigint | null): Promise<Connection> {
  return peer((req, socket) => {
    seen.push(req);
    if (req.command === Command.CHANGE_NOTIFY) {
      if (asyncId !== null) send(socket, interimResponse(req, asyncId));
    } else if (req.command === Command.CANCEL) {
      const held = seen.find((r) => r.command === Command.CHANGE_NOTIFY)!;
      const cancelled = echoResponse(held, asyncId === null ? 1 : 0, asyncId === null ? 0 : ASYNC, NtStatus.CANCELLED);
      cancelled.writeBigUInt64LE(asyncId ?? 0n, 32);
      send(socket, cancelled);
    } else send(socket, echoResponse(req, 1));
  });
}

test('cancelling a held request sends SMB2 CANCEL with its message id and async id, consuming neither id nor credit', async () => {
  const seen: Request[] = [];
  const conn = await cancellablePeer(seen, 0x1234n);
  try {
    const controller = new AbortController();
    let armed!: () => void;
    const interim = new Promise<void>((resolve) => (armed = resolve));
    const held = conn.compound([changeNotifyRequest(Buffer.alloc(16), 1, true, 4096)], { treeId: 5 }, { held: true, signal: controller.signal, onInterim: armed });
    await interim;
    controller.abort();
    const [res] = await held;
    assert.equal(res!.header.status, NtStatus.CANCELLED);
    const notify = seen.find((r) => r.command === Command.CHANGE_NOTIFY)!;
    const cancel = seen.find((r) => r.command === Command.CANCEL)!;
    assert.equal(cancel.messageId, notify.messageId, 'the cancelled request\'s message id');
    assert.equal(cancel.flags & ASYNC, ASYNC);
    assert.equal(cancel.asyncId, 0x1234n);
    assert.equal(cancel.creditCharge, 0);
    await conn.request(echo);
    assert.equal(seen.at(-1)!.messageId, notify.messageId + 1n, 'CANCEL took no message id');
  } finally {
    conn.close();
  }
});

test('a held request cancelled before the server took it is cancelled by message id alone; a dropped connection fails it', async () => {
  const seen: Request[] = [];
  const conn = await cancellablePeer(seen, null);
  try {
    const controller = new AbortController();
    const held = conn.compound([changeNotifyRequest(Buffer.alloc(16), 1, true, 4096)], {}, { held: true, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const [res] = await held;
    assert.equal(res!.header.status, NtStatus.CANCELLED);
    const cancel = seen.find((r) => r.command === Command.CANCEL)!;
    assert.equal(cancel.flags & ASYNC, 0, 'no async id yet');
    assert.equal(cancel.messageId, seen[0]!.messageId);
  } finally {
    conn.close();
  }
  const dropped = await peer((req, socket) => {
    if (req.command === Command.CHANGE_NOTIFY) {
      send(socket, interimResponse(req, 9n));
      setTimeout(() => socket.destroy(), 20);
    }
  });
  await assert.rejects(dropped.compound([changeNotifyRequest(Buffer.alloc(16), 1, true, 4096)], {}, { held: true }), { code: 'CONNECTION_CLOSED' });
});

test('held requests: one keep-alive ECHO per interval for the whole connection, none once nothing is held; an unanswered one closes the connection', async () => {
  const echoes: Request[] = [];
  let answerEchoes = true;
  const notifies: Request[] = [];
  let socketOf: Socket | undefined;
  const conn = await peer((req, socket) => {
    socketOf = socket;
    if (req.command === Command.CHANGE_NOTIFY) {
      notifies.push(req);
      send(socket, interimResponse(req, BigInt(notifies.length)));
    } else if (req.command === Command.ECHO) {
      echoes.push(req);
      if (answerEchoes) send(socket, echoResponse(req, 1));
    }
  }, 150, { keepAliveMs: 100 });
  const watch = () => conn.compound([changeNotifyRequest(Buffer.alloc(16), 1, true, 4096)], {}, { held: true });
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    // One held request answered at once: no keep-alive afterwards.
    const first = watch();
    await settle(30);
    const final = echoResponse(notifies[0]!, 1, ASYNC, NtStatus.NOTIFY_ENUM_DIR);
    final.writeBigUInt64LE(1n, 32);
    send(socketOf!, final);
    await first;
    await settle(350);
    assert.equal(echoes.length, 0, 'no ECHO while nothing is held');
    // Twenty held at once: about one ECHO per 100 ms (fewer on a busy host), not twenty.
    const held = Array.from({ length: 20 }, watch);
    held.forEach((h) => h.catch(() => undefined));
    await settle(450);
    assert.ok(echoes.length >= 1 && echoes.length <= 5, `${echoes.length} ECHOs in 450 ms`);
    // The server stops answering: the next ECHO times out (150 ms) and every held request fails with the closed connection.
    answerEchoes = false;
    for (const h of held) await assert.rejects(h, (err: unknown) => err instanceof SmbError && err.code === 'CONNECTION_CLOSED' && /keep-alive ECHO/.test(err.message));
    assert.ok(conn.isClosed);
  } finally {
    conn.close();
  }
});

test('a 3.1.1 server that chose AES-GMAC signing: requests are signed and answers checked with GMAC, a CMAC signature fails', async () => {
  const requests: Request[] = [];
  let answered = 0;
  const conn = await peer((req, socket) => {
    requests.push(req);
    send(socket, signedResponse(req, 1, 0, answered++ === 0 ? SigningAlgorithm.AES_GMAC : SigningAlgorithm.AES_CMAC));
  }, 300, { negotiate: (messageId) => negotiateResponse(messageId, 0x311, true, SigningAlgorithm.AES_GMAC) });
  conn.registerSession(session(key));
  try {
    assert.equal(conn.signingAlgorithm, SigningAlgorithm.AES_GMAC);
    await signedEcho(conn);
    assert.ok(verifySignature(SigningAlgorithm.AES_GMAC, key, requests[0]!.frame), 'the request carries a GMAC signature');
    await assert.rejects(signedEcho(conn), { code: 'SIGNATURE_MISMATCH' }, 'an answer signed with CMAC');
  } finally {
    conn.close();
  }
});

test('a 3.1.1 server that chose a signing algorithm the client did not offer is refused at NEGOTIATE', async () => {
  await assert.rejects(
    peer(() => undefined, 300, { negotiate: (messageId) => negotiateResponse(messageId, 0x311, true, SigningAlgorithm.HMAC_SHA256) }),
    { code: 'PROTOCOL_ERROR', message: /signing algorithm 0, which was not offered/ },
  );
});
