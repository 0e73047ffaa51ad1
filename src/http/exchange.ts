// One HTTP request/response over uWebSockets.js, made safe for async code.
// uWS hands out a request object that dies when the handler returns, and a
// response that dies on abort; this copies what we need up front and guards
// every write.
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { HttpError, errorBody, statusLine } from './http-error.js';

export class HttpExchange {
  readonly method: string;
  /** The raw (still percent-encoded) path, without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case header names; repeated headers are joined with ", ". */
  readonly headers: Record<string, string> = {};
  readonly startedAt = performance.now();
  status = 0;
  private aborted = false;
  private body: Promise<Buffer> | undefined;

  constructor(private readonly res: HttpResponse, req: HttpRequest, private readonly onDone: (ex: HttpExchange) => void) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.path = req.getUrl();
    this.query = new URLSearchParams(req.getQuery() ?? '');
    req.forEach((name, value) => {
      this.headers[name] = name in this.headers ? `${this.headers[name]}, ${value}` : value;
    });
    res.onAborted(() => {
      this.aborted = true;
      this.finish();
    });
  }

  get done(): boolean {
    return this.aborted || this.status !== 0;
  }

  /**
   * Start buffering the request body, up to `limit` bytes. Must be called
   * before the route handler first awaits (uWS drops chunks nobody listens to).
   * Over the limit the request is answered 413 at once, without reading on.
   */
  collectBody(limit: number): void {
    const declared = Number(this.headers['content-length'] ?? 0);
    this.body = new Promise((resolve, reject) => {
      if (declared > limit) {
        reject(new HttpError(413, 'body_too_large', `request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      this.res.onData((chunk, isLast) => {
        if (size < 0) return; // already rejected
        size += chunk.byteLength;
        if (size > limit) {
          size = -1;
          reject(new HttpError(413, 'body_too_large', `request body exceeds the limit of ${limit} bytes`));
          return;
        }
        // uWS reuses the chunk's memory after this callback: copy it.
        chunks.push(Buffer.from(chunk.slice(0)));
        if (isLast) resolve(Buffer.concat(chunks, size));
      });
    });
    // A handler that never reads the body must not cause an unhandled rejection.
    this.body.catch(() => undefined);
  }

  /** The body collected by collectBody (empty when the route takes none). */
  readBody(): Promise<Buffer> {
    return this.body ?? Promise.resolve(Buffer.alloc(0));
  }

  send(status: number, body: string | Buffer = '', headers: Record<string, string> = {}, closeConnection = false): void {
    if (this.done) return;
    this.status = status;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      for (const [name, value] of Object.entries(headers)) this.res.writeHeader(name, value);
      this.res.end(body, closeConnection);
    });
    this.finish();
  }

  json(status: number, value: unknown, headers: Record<string, string> = {}): void {
    this.send(status, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
  }

  /** Answer with the shared JSON error shape; 413 also closes the connection. */
  fail(err: HttpError): void {
    const body = JSON.stringify(errorBody(err.code, err.message));
    this.send(err.status, body, { 'content-type': 'application/json', ...err.headers }, err.status === 413);
  }

  private finished = false;
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(this);
  }
}
