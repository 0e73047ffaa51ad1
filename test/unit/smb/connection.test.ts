/**
 * Connection logic against a scripted in-process TCP peer: credits and message ids, signature checks,
 * timeouts, malformed frames and dropped connections.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { Connection } from '../../../src/smb/connection.js';
import { signMessage } from '../../../src/smb/crypto.js';
import { Command, Dialect } from '../../../src/smb/header.js';
import { readRequest } from '../../../src/smb/messages.js';
import { FrameDecoder } from '../../../src/smb/transport.js';
import { SmbError } from '../../../src/smb/errors.js';
import { negotiateResponse, prng, readResponse, responseHeader } from './frames.js';

interface Request {
  command: number;
  messageId: bigint;
  creditCharge: number;
  creditRequest: number;
  sessionId: bigint;
}

type Handler = (req: Request, socket: Socket) => void;

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

function send(socket: Socket, msg: Buffer): void {
  const prefix = Buffer.alloc(4);
  prefix.writeUIntBE(msg.length, 1, 3);
  socket.write(Buffer.concat([prefix, msg]));
}

/** A peer that answers NEGOTIATE itself and hands every other request to `handler`. */
async function peer(handler: Handler, requestTimeoutMs = 300): Promise<Connection> {
  const server = createServer((socket) => {
    const decoder = new FrameDecoder();
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      for (const f of decoder.push(chunk)) {
        const req: Request = {
          command: f.readUInt16LE(12),
          messageId: f.readBigUInt64LE(24),
          creditCharge: f.readUInt16LE(6),
          creditRequest: f.readUInt16LE(14),
          sessionId: f.readBigUInt64LE(40),
        };
        if (req.command === Command.NEGOTIATE) send(socket, negotiateResponse(req.messageId));
        else handler(req, socket);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Connection.connect({ host: '127.0.0.1', port, requestTimeoutMs, dialects: [Dialect.SMB311] });
}

function echoResponse(req: Request, credits = 1, flags = 0): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt16LE(4, 0);
  return Buffer.concat([responseHeader(Command.ECHO, req.messageId, 0, { credits, flags, sessionId: req.sessionId }), body]);
}

const session = (signingKey: Buffer | null) => ({ sessionId: 7n, signingKey, encryptionKey: null, decryptionKey: null, encryptData: false });
const echo = { command: Command.ECHO, body: Buffer.from([4, 0, 0, 0]) } as const;

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

test('signed sessions: a wrong or missing signature is SIGNATURE_MISMATCH, a correct one passes, another session id is refused', async () => {
  const key = Buffer.alloc(16, 9);
  let mode: 'good' | 'bad' | 'unsigned' | 'sessionless' = 'good';
  const conn = await peer((req, socket) => {
    const res = echoResponse(req, 1, mode === 'unsigned' || mode === 'sessionless' ? 0 : 0x8);
    if (mode === 'sessionless') res.writeBigUInt64LE(0n, 40); // a session without keys must not dodge the check
    if (mode !== 'unsigned') signMessage(Dialect.SMB311, key, res);
    if (mode === 'bad') res[60] ^= 1;
    send(socket, res);
  });
  try {
    conn.registerSession(session(key));
    await conn.request(echo, { session: session(key) });
    mode = 'bad';
    await assert.rejects(conn.request(echo, { session: session(key) }), { code: 'SIGNATURE_MISMATCH' });
    mode = 'unsigned';
    await assert.rejects(conn.request(echo, { session: session(key) }), { code: 'SIGNATURE_MISMATCH' });
    mode = 'sessionless';
    await assert.rejects(conn.request(echo, { session: session(key) }), { code: 'PROTOCOL_ERROR' });
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
    if (!conn || conn.isClosed) {
      conn = await peer((req, socket) => {
        const res = echoResponse(req, 1);
        const flips = 1 + Math.floor(rnd() * 4);
        for (let k = 0; k < flips; k++) res[Math.floor(rnd() * res.length)] = Math.floor(rnd() * 256);
        send(socket, rnd() < 0.2 ? res.subarray(0, Math.floor(rnd() * res.length)) : res);
      }, 50);
    }
    try {
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
