// HTTP/1.1 over a plain socket, for requests fetch cannot express (duplicate or
// oversized headers, raw bytes in header values, any method and target): one
// request at a time per connection, the connection kept alive between them.
import { connect, type Socket } from 'node:net';

export type HeaderValue = string | Buffer;

export interface RawRequest {
  method: string;
  /** The request-target exactly as it goes on the wire. */
  target: string;
  /** In order, repeats allowed; Host and Content-Length are added unless present. */
  headers: Array<[string, HeaderValue]>;
  body?: Buffer | string;
}

export interface RawAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export function encodeRequest(req: RawRequest, host: string): Buffer {
  const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body ?? Buffer.alloc(0);
  const has = (name: string) => req.headers.some(([n]) => n.toLowerCase() === name);
  const headers: Array<[string, HeaderValue]> = [
    ...(has('host') ? [] : [['host', host] as [string, string]]),
    ...req.headers,
    ...(has('content-length') || has('transfer-encoding') ? [] : [['content-length', String(body.length)] as [string, string]]),
  ];
  const parts: Buffer[] = [Buffer.from(`${req.method} ${req.target} HTTP/1.1\r\n`, 'latin1')];
  for (const [name, value] of headers) {
    parts.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('\r\n'), body);
  return Buffer.concat(parts);
}

/** The first complete answer in `data` (1xx interim answers skipped), and how many bytes it took; undefined while incomplete. */
export function parseAnswer(data: Buffer, method: string, closed: boolean): { answer: RawAnswer; size: number } | undefined {
  let start = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', start);
    if (end < 0) return undefined;
    const lines = data.subarray(start, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!match) throw new Error(`not an HTTP answer: ${JSON.stringify(lines[0])}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const bodyStart = end + 4;
    if (status < 200) {
      start = bodyStart;
      continue;
    }
    if (headers['transfer-encoding'] !== undefined) throw new Error(`chunked answers are not expected (status ${status})`);
    const bodiless = method === 'HEAD' || status === 204 || status === 304;
    const declared = headers['content-length'];
    if (bodiless || declared !== undefined) {
      const length = bodiless ? 0 : Number(declared);
      if (data.length < bodyStart + length) return undefined;
      return { answer: { status, headers, body: data.subarray(bodyStart, bodyStart + length) }, size: bodyStart + length };
    }
    // Neither length nor chunks: the body runs to the end of the connection.
    if (!closed) return undefined;
    return { answer: { status, headers, body: data.subarray(bodyStart) }, size: data.length };
  }
}

/** One keep-alive connection; reconnects when the server closed the previous one. */
export class RawConnection {
  private socket: Socket | undefined;
  /** Answers read on the current socket. */
  private answered = 0;
  /** The current socket was reset (rather than closed with a FIN). */
  private reset = false;
  /** The last request answered on the current socket and its status, for the message of a lost answer. */
  private lastAnswered = '';
  /** Requests sent a second time because a kept-alive connection was closed before a byte of their answer. */
  resent = 0;

  constructor(private readonly port: number, private readonly host = '127.0.0.1') {}

  async send(req: RawRequest, timeoutMs: number): Promise<RawAnswer> {
    const reused = this.answered > 0;
    try {
      return await this.exchange(req, timeoutMs);
    } catch (err) {
      // A server may close a kept-alive connection at any time (here: after refusing the bytes that followed a
      // request whose header value the generator broke with CR LF); a client then sends the request again on a
      // new one (RFC 9112 9.3.1). The close comes as a reset when this request's bytes had already reached the
      // server's socket, unread (seen once in a CI run: a GET after 32 answers on its connection): the same race,
      // so it is resent too and counted alike. Not on a fresh connection: that lost an answer. A crash behind a
      // reset still fails the campaign's health check (every actor running, none restarted).
      if (!(err instanceof NoAnswer) || !reused) throw err;
      this.resent++;
      return this.exchange(req, timeoutMs);
    }
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private async open(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return this.socket;
    this.answered = 0;
    this.reset = false;
    this.lastAnswered = '';
    const socket = connect(this.port, this.host);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.setNoDelay(true);
    // Resets (a server that answers early, e.g. 413, and closes) show as 'close'; the answer read so far still counts.
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code === 'ECONNRESET' || err.code === 'EPIPE') this.reset = true; });
    this.socket = socket;
    return socket;
  }

  private async exchange(req: RawRequest, timeoutMs: number): Promise<RawAnswer> {
    const bytes = encodeRequest(req, `${this.host}:${this.port}`);
    const method = req.method;
    const socket = await this.open();
    return new Promise<RawAnswer>((resolve, reject) => {
      let data = Buffer.alloc(0);
      let closed = false;
      const timer = setTimeout(() => settle(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
      const settle = (outcome: RawAnswer | Error) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        if (outcome instanceof Error) {
          this.close();
          reject(outcome);
        } else {
          this.answered++;
          this.lastAnswered = `${method} ${req.target.slice(0, 60)} (${bytes.length} bytes) → ${outcome.status}`;
          if (closed || /\bclose\b/i.test(outcome.headers['connection'] ?? '')) this.close();
          resolve(outcome);
        }
      };
      const tryParse = () => {
        try {
          const parsed = parseAnswer(data, method, closed);
          if (parsed) settle(parsed.answer);
          else if (closed) settle(data.length === 0 ? new NoAnswer(this.reset, this.answered, this.lastAnswered) : new CutShort(data));
        } catch (err) {
          settle(err as Error);
        }
      };
      const onData = (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        tryParse();
      };
      const onClose = () => {
        closed = true;
        tryParse();
      };
      socket.on('data', onData);
      socket.on('close', onClose);
      socket.write(bytes);
    });
  }
}

/** The server closed the connection without a byte of answer. */
export class NoAnswer extends Error {
  constructor(readonly reset: boolean, answeredBefore: number, lastAnswered: string) {
    super(`connection ${reset ? 'reset' : 'closed'} without an answer`
      + (answeredBefore === 0 ? ' (a new connection)' : ` (after ${answeredBefore} answer(s) on it, the last: ${lastAnswered})`));
  }
}

/** The server closed the connection in the middle of an answer. */
export class CutShort extends Error {
  /** The status line's code, 0 when even that did not arrive. */
  readonly status: number;

  constructor(received: Buffer) {
    const head = received.subarray(0, 200).toString('latin1');
    super(`connection closed in the middle of an answer: ${JSON.stringify(head)}`);
    this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  }
}
