// HttpExchange over uWebSockets.js. uWS hands out a request object that dies
// when the handler returns, and a response that dies on abort; this copies
// what we need up front and guards every write.
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { HttpExchange, type ResponseHeaders } from './exchange.js';
import { statusLine } from './http-error.js';

/** Body bytes buffered before uWS is asked to pause the socket. */
const BODY_HIGH_WATER = 1024 * 1024;

export class UwsExchange extends HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string> = {};
  readonly clientAddress: string;
  /**
   * The streamed write waiting for uWS to take more bytes. uWS keeps the first onWritable handler a response is
   * given and ignores later ones, so one handler, registered at the first wait, serves every wait through this field
   * (a handler per wait left the second wait of a download unanswered, and the download hung).
   */
  private waitingWrite: { retry: (offset: number) => boolean; resume: () => void } | undefined;
  private writableHandled = false;

  constructor(private readonly res: HttpResponse, req: HttpRequest, onDone: (ex: HttpExchange) => void) {
    super(onDone);
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.clientAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    this.path = req.getUrl();
    this.query = new URLSearchParams(req.getQuery() ?? '');
    req.forEach((name, value) => {
      this.headers[name] = name in this.headers ? `${this.headers[name]}, ${value}` : value;
    });
    res.onAborted(() => {
      this.aborted = true;
      this.finish();
      this.resumeWrite();
    });
  }

  protected openBody(): AsyncIterable<Buffer> {
    const queue: Buffer[] = [];
    let queued = 0;
    let ended = false;
    // uWS stalls the upload when resume() is called on a socket that is not paused.
    let paused = false;
    let wake: (() => void) | undefined;
    const res = this.res;
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback: copy it.
      const copy = Buffer.from(chunk.slice(0));
      queue.push(copy);
      queued += copy.byteLength;
      ended = isLast;
      if (queued > BODY_HIGH_WATER && !ended && !paused) {
        paused = true;
        res.pause();
      }
      wake?.();
    });
    const self = this;
    return (async function* () {
      for (;;) {
        const next = queue.shift();
        if (next !== undefined) {
          queued -= next.byteLength;
          if (paused && queued <= BODY_HIGH_WATER && !self.aborted) {
            paused = false;
            res.resume();
          }
          yield next;
          continue;
        }
        if (ended) return;
        if (self.aborted) throw new Error('client went away before the request body was complete');
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
      }
    })();
  }

  protected writeWhole(status: number, headers: ResponseHeaders, body: string | Buffer | undefined, closeConnection: boolean): void {
    this.res.cork(() => {
      this.writeStatusAndHeaders(status, headers);
      // endWithoutBody(undefined, ...) would announce a Content-Length of 2^63; without arguments it sends none.
      if (body === undefined) closeConnection ? this.res.endWithoutBody(0, true) : this.res.endWithoutBody();
      else this.res.end(body, closeConnection);
    });
  }

  protected writeHead(status: number, headers: ResponseHeaders, length: number): void {
    this.res.cork(() => {
      this.writeStatusAndHeaders(status, headers);
      this.res.endWithoutBody(length);
    });
  }

  protected async writeStream(status: number, headers: ResponseHeaders, length: number, source: AsyncIterable<Buffer>): Promise<void> {
    let started = false;
    try {
      for await (const chunk of source) {
        if (this.aborted) return;
        let outcome: [boolean, boolean] = [false, false];
        const offset = this.res.getWriteOffset();
        this.res.cork(() => {
          if (!started) this.writeStatusAndHeaders(status, headers);
          started = true;
          outcome = this.res.tryEnd(chunk, length);
        });
        if (outcome[1]) return;
        if (!outcome[0]) await this.drained(chunk, offset, length);
      }
    } catch (err) {
      if (!this.aborted) this.res.close();
      throw err;
    }
  }

  /** Waits until uWS took the rest of `chunk` (sent from write offset `start`), or the client went away. */
  private drained(chunk: Buffer, start: number, length: number): Promise<void> {
    return new Promise((resume) => {
      this.waitingWrite = {
        retry: (offset) => {
          const [ok, done] = this.res.tryEnd(chunk.subarray(offset - start), length);
          if (ok || done) this.resumeWrite();
          return ok;
        },
        resume,
      };
      if (this.writableHandled) return;
      this.writableHandled = true;
      this.res.onWritable((offset) => this.waitingWrite?.retry(offset) ?? true);
    });
  }

  private resumeWrite(): void {
    const waiting = this.waitingWrite;
    this.waitingWrite = undefined;
    waiting?.resume();
  }

  private writeStatusAndHeaders(status: number, headers: ResponseHeaders): void {
    this.res.writeStatus(statusLine(status));
    for (const [name, value] of Object.entries(headers)) this.res.writeHeader(name, value);
  }
}
