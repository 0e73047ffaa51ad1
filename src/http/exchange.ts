// One HTTP request/response, the same for both transports the http-front can
// run on (uWebSockets.js, node:http): request line and headers copied up
// front, the body collected or streamed, every write guarded against a
// response that is already sent or whose client went away.
import { HttpError, errorBody } from './http-error.js';

export type ResponseHeaders = Record<string, string>;

export abstract class HttpExchange {
  abstract readonly method: string;
  /** The raw (still percent-encoded) path, without the query string. */
  abstract readonly path: string;
  abstract readonly query: URLSearchParams;
  /** Lower-case header names; repeated headers are joined with ", ". */
  abstract readonly headers: Record<string, string>;
  /** The TCP peer's address (never a forwarded-for header: a client can write those); '' once the client is gone. */
  abstract readonly clientAddress: string;
  readonly startedAt = performance.now();
  /** Sent with every response of this exchange (e.g. X-Request-Id); the route's own headers win. */
  readonly commonHeaders: ResponseHeaders = {};
  status = 0;
  protected aborted = false;
  private body: Promise<Buffer> | undefined;
  private chunks: AsyncIterable<Buffer> | undefined;
  private finished = false;

  protected constructor(private readonly onDone: (ex: HttpExchange) => void) {}

  get done(): boolean {
    return this.aborted || this.status !== 0;
  }

  /** The request body as it arrives, with backpressure; it starts flowing when first iterated. */
  protected abstract openBody(): AsyncIterable<Buffer>;
  /** Status, headers and the whole body (undefined: none, not even a Content-Length: 0). */
  protected abstract writeWhole(status: number, headers: ResponseHeaders, body: string | Buffer | undefined, closeConnection: boolean): void;
  /** Status and headers with `Content-Length: length` but no body (HEAD). */
  protected abstract writeHead(status: number, headers: ResponseHeaders, length: number): void;
  /** Status, headers and `length` bytes from `source`, waiting for the client to take them. */
  protected abstract writeStream(status: number, headers: ResponseHeaders, length: number, source: AsyncIterable<Buffer>): Promise<void>;

  /**
   * Start buffering the request body, up to `limit` bytes. Must be called
   * before the route handler first awaits (uWS drops chunks nobody listens to).
   * Over the limit the request is answered 413 at once, without reading on.
   */
  collectBody(limit: number): void {
    const declared = Number(this.headers['content-length'] ?? 0);
    this.body = declared > limit ? Promise.reject(new HttpError(413, 'body_too_large', `request body of ${declared} bytes exceeds the limit of ${limit} bytes`)) : this.collectWhole(limit);
    // A handler that never reads the body must not cause an unhandled rejection.
    this.body.catch(() => undefined);
  }

  /** The whole body, rejected with a 413 once it grows over `limit` bytes; a transport may collect it more cheaply. */
  protected async collectWhole(limit: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.openBody()) {
      size += chunk.byteLength;
      if (size > limit) throw bodyOverLimit(limit);
      parts.push(chunk);
    }
    return Buffer.concat(parts, size);
  }

  /** The body collected by collectBody (empty when the route takes none). */
  readBody(): Promise<Buffer> {
    return this.body ?? Promise.resolve(Buffer.alloc(0));
  }

  /** Make the body available as a stream (routes with `streamBody`); like collectBody, before the first await. */
  streamBody(): void {
    this.chunks = this.openBody();
  }

  /** The streamed body (empty when the route takes none). */
  bodyChunks(): AsyncIterable<Buffer> {
    return this.chunks ?? (async function* () {})();
  }

  send(status: number, body: string | Buffer = '', headers: ResponseHeaders = {}, closeConnection = false): void {
    if (this.done) return;
    this.status = status;
    // 204 and 304 carry neither a body nor a Content-Length.
    this.writeWhole(status, { ...this.commonHeaders, ...headers }, status === 204 || status === 304 ? undefined : body, closeConnection);
    this.finish();
  }

  /** A HEAD answer: the headers a GET would carry, Content-Length included, and no body. */
  head(status: number, headers: ResponseHeaders, length: number): void {
    if (this.done) return;
    this.status = status;
    this.writeHead(status, { ...this.commonHeaders, ...headers }, length);
    this.finish();
  }

  /** A body of `length` bytes produced chunk by chunk (large files); the exchange is done when it ends. */
  async stream(status: number, headers: ResponseHeaders, length: number, source: AsyncIterable<Buffer>): Promise<void> {
    if (this.done) return;
    this.status = status;
    try {
      await this.writeStream(status, { ...this.commonHeaders, ...headers }, length, source);
    } finally {
      this.finish();
    }
  }

  json(status: number, value: unknown, headers: ResponseHeaders = {}): void {
    this.send(status, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
  }

  /** Answer with the shared JSON error shape; 413, and errors whose headers say `connection: close`, close the connection. */
  fail(err: HttpError): void {
    const body = JSON.stringify(errorBody(err.code, err.message));
    this.send(err.status, body, { 'content-type': 'application/json', ...err.headers }, err.status === 413 || err.headers['connection'] === 'close');
  }

  protected finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(this);
  }
}

/** The 413 for a body that grew over `limit` bytes while it arrived. */
export function bodyOverLimit(limit: number): HttpError {
  return new HttpError(413, 'body_too_large', `request body exceeds the limit of ${limit} bytes`);
}
