// HttpExchange over node:http. uWebSockets.js 20.30 closes the connection on
// request methods it does not know (PROPFIND, MKCOL, LOCK, ...), so WebDAV
// needs Node's own HTTP parser, which knows them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyOverLimit, HttpExchange, type ResponseHeaders } from './exchange.js';
import { HttpError } from './http-error.js';
import { closeWithoutReset } from './lingering-close.js';

export class NodeExchange extends HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string> = {};
  readonly clientAddress: string;
  /** Set once the body missed its deadline: reading it fails with this. */
  private bodyExpired: HttpError | undefined;
  private readonly bodyDeadline: NodeJS.Timeout;

  /** `bodyTimeoutMs`: the time from the headers to the end of a collected body (http.body_timeout). */
  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse, onDone: (ex: HttpExchange) => void, bodyTimeoutMs: number) {
    super(onDone);
    this.method = (req.method ?? 'GET').toUpperCase();
    this.clientAddress = req.socket.remoteAddress ?? '';
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    this.path = q < 0 ? target : target.slice(0, q);
    this.query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      this.headers[name] = name in this.headers ? `${this.headers[name]}, ${raw[i + 1]}` : raw[i + 1]!;
    }
    // Node bounds only the pause between two chunks; a sender that trickles is cut off by this deadline.
    const deadline = setTimeout(() => this.expireBody(bodyTimeoutMs), bodyTimeoutMs);
    deadline.unref();
    this.bodyDeadline = deadline;
    res.on('close', () => {
      if (!res.writableFinished) this.aborted = true;
      // An answer may go out before the body is in (Node then reads and drops the rest): the deadline still holds.
      if (req.complete || this.aborted) clearTimeout(deadline);
      this.finish();
    });
    req.once('end', () => clearTimeout(deadline));
  }

  /**
   * A streamed body (a WebDAV upload of any size) has no overall deadline: it may take as long as it keeps
   * flowing, and only a pause between chunks longer than http.body_timeout ends it (server.timeout).
   */
  override streamBody(): void {
    clearTimeout(this.bodyDeadline);
    super.streamBody();
  }

  protected async *openBody(): AsyncIterable<Buffer> {
    try {
      yield* this.req;
    } catch (err) {
      throw this.bodyExpired ?? err;
    }
  }

  /**
   * The stream's own events instead of its async iterator: a small body (a webhook event, a search) then costs
   * one promise instead of one per chunk and the iterator's machinery, which the request-path profile showed as
   * garbage. Over the limit the rest of the body is dropped unread; the 413 closes the connection.
   */
  protected override collectWhole(limit: number): Promise<Buffer> {
    const req = this.req;
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      const stop = (err: Error | undefined): void => {
        req.off('data', onData).off('end', onEnd).off('error', stop).off('close', onClose);
        if (err) reject(this.bodyExpired ?? err);
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.byteLength;
        if (size > limit) stop(bodyOverLimit(limit));
        else parts.push(chunk);
      };
      const onEnd = (): void => {
        stop(undefined);
        resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
      };
      const onClose = (): void => stop(new Error('client went away before the request body was complete'));
      req.on('data', onData).on('end', onEnd).on('error', stop).on('close', onClose);
    });
  }

  /** The body is late: a 408 that closes the connection, or (already answered) the connection closed. */
  private expireBody(timeoutMs: number): void {
    if (this.req.complete) return;
    this.bodyExpired = new HttpError(408, 'body_timeout', `the request body did not arrive within ${timeoutMs / 1000} s (http.body_timeout)`, { connection: 'close' });
    if (!this.done) {
      this.fail(this.bodyExpired);
      return;
    }
    if (this.res.writableFinished) this.req.socket.destroy();
    else this.res.once('finish', () => this.req.socket.destroy());
  }

  protected writeWhole(status: number, headers: ResponseHeaders, body: string | Buffer | undefined, closeConnection: boolean): void {
    const all: ResponseHeaders = { ...headers };
    if (body !== undefined) all['content-length'] = String(Buffer.byteLength(body));
    if (closeConnection) {
      // Set apart from writeHead's headers, so that getHeader() sees it: a parser error in the rest of this request
      // then leaves the closing to this answer (HttpServer.refuseUnparsed) instead of resetting the connection.
      this.res.setHeader('connection', 'close');
      // Node ends a connection whose answer says `connection: close` with destroySoon(), which resets it when the
      // body is still arriving. The request's socket, not the answer's: an answer queued behind the previous one on
      // its connection has none yet.
      const socket = this.req.socket;
      if (!this.req.complete && !socket.destroyed) socket.destroySoon = () => closeWithoutReset(socket);
    }
    this.res.writeHead(status, all);
    this.res.end(body);
  }

  protected writeHead(status: number, headers: ResponseHeaders, length: number): void {
    this.res.writeHead(status, { ...headers, 'content-length': String(length) });
    this.res.end();
  }

  protected async writeStream(status: number, headers: ResponseHeaders, length: number, source: AsyncIterable<Buffer>): Promise<void> {
    this.res.writeHead(status, { ...headers, 'content-length': String(length) });
    try {
      for await (const chunk of source) {
        if (this.aborted) return;
        if (!this.res.write(chunk)) await drainedOrClosed(this.res);
      }
      this.res.end();
    } catch (err) {
      this.res.destroy();
      throw err;
    }
  }
}

/**
 * Resolves when the response takes more bytes or has closed, and removes both listeners then: a race of two
 * `events.once` leaves the loser's listeners on the response, one more per wait, for the whole of a long download.
 */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
