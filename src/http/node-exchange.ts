// HttpExchange over node:http. uWebSockets.js 20.30 closes the connection on
// request methods it does not know (PROPFIND, MKCOL, LOCK, ...), so WebDAV
// needs Node's own HTTP parser, which knows them.
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpExchange, type ResponseHeaders } from './exchange.js';

export class NodeExchange extends HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string> = {};

  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse, onDone: (ex: HttpExchange) => void) {
    super(onDone);
    this.method = (req.method ?? 'GET').toUpperCase();
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    this.path = q < 0 ? target : target.slice(0, q);
    this.query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      this.headers[name] = name in this.headers ? `${this.headers[name]}, ${raw[i + 1]}` : raw[i + 1]!;
    }
    res.on('close', () => {
      if (!res.writableFinished) this.aborted = true;
      this.finish();
    });
  }

  protected openBody(): AsyncIterable<Buffer> {
    return this.req;
  }

  protected writeWhole(status: number, headers: ResponseHeaders, body: string | Buffer | undefined, closeConnection: boolean): void {
    const all: ResponseHeaders = { ...headers };
    if (body !== undefined) all['content-length'] = String(Buffer.byteLength(body));
    if (closeConnection) all['connection'] = 'close';
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
        if (!this.res.write(chunk)) await Promise.race([once(this.res, 'drain'), once(this.res, 'close')]);
      }
      this.res.end();
    } catch (err) {
      this.res.destroy();
      throw err;
    }
  }
}
