// The HTTP server of one http-front thread: accepts requests, dispatches them
// through the router, counts what is in flight so that a shutdown can drain,
// and closes every socket before the thread exits. It listens with the transport
// that transport.ts chose: node:http or uWebSockets.js; with several http-front
// threads, each listens on the same port (SO_REUSEPORT) and the kernel spreads
// the connections over them.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createHttpsServer } from 'node:https';
import type { TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import type { Config } from '../../src/config/index.js';
import type { HttpExchange } from '../../src/http/exchange.js';
import { errorBody, HttpError, statusLine } from '../../src/http/http-error.js';
import { closeWithoutReset } from '../../src/http/lingering-close.js';
import { plainOutcome, requestIdFrom, UNMATCHED_ROUTE, type FinishedRequest, type HttpRequestMetrics } from './request-metrics.js';
import { NodeExchange } from '../../src/http/node-exchange.js';
import type { Router } from '../../src/http/router.js';
import { UwsExchange } from '../../src/http/uws-exchange.js';
import { errorWithoutMessage, withoutRedaction } from '../../src/common/logger.js';
import type { HttpTransport, Uws } from './transport.js';

/** The binary has `close()` (it closes every socket of the app); the 20.30 typings lack it. */
type App = TemplatedApp & { close(): void };

/** Where and how to listen (the transport is chosen before, see transport.ts). */
type HttpSettings = Omit<Config['http'], 'transport'>;

/** How a server listens besides its transport. */
interface ListenOptions {
  /** Other threads listen on the same port (node:http needs to be told; uWS always lets them). */
  sharedPort?: boolean;
  metrics?: HttpRequestMetrics;
}

/** What the two transports have to offer the server. */
interface Listener {
  /** Stop accepting new connections. */
  stopListening(): void;
  /** Close every connection now. */
  closeAll(): void;
}

/** What the server notes about a request while it runs, for its log line and metrics. */
interface Tracked {
  requestId: string;
  route: string;
  /** The code of the HttpError answered, if any. */
  errorCode: string | undefined;
}

export class HttpServer {
  private listener: Listener | undefined;
  private inFlight = 0;
  private served = 0;
  private draining = false;
  private drained: (() => void) | undefined;
  private readonly tracked = new Map<HttpExchange, Tracked>();
  /** node:http sockets whose refusal waits until the answer under way is out (see refuseUnparsed). */
  private readonly refusing = new WeakSet<Duplex>();
  /** The per-request line carries no field that could hold a secret (see finished), so it skips redaction. */
  private readonly requestLog: Logger;

  private constructor(private readonly router: Router, private readonly log: Logger, private readonly metrics: HttpRequestMetrics | undefined) {
    this.requestLog = withoutRedaction(log);
  }

  static async listen(
    http: HttpSettings, router: Router, log: Logger, transport: HttpTransport, options: ListenOptions = {},
  ): Promise<HttpServer> {
    const server = new HttpServer(router, log, options.metrics);
    const sharedPort = options.sharedPort ?? false;
    server.listener = transport.name === 'uws' ? await server.listenUws(http, transport.uws) : await server.listenNode(http, sharedPort);
    log.info({ host: http.host, port: http.port, tls: Boolean(http.tls), transport: transport.name, sharedPort }, 'listening');
    return server;
  }

  stats(): Record<string, number> {
    return { inFlight: this.inFlight, served: this.served };
  }

  /** Stop accepting, let in-flight requests finish (up to the timeout), close all. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.listener?.stopListening();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    this.listener?.closeAll();
  }

  /** Synchronous close for a dying thread. */
  closeNow(): void {
    this.listener?.stopListening();
    this.listener?.closeAll();
  }

  private listenUws(http: HttpSettings, uws: Uws): Promise<Listener> {
    const app = (http.tls
      ? uws.SSLApp({ cert_file_name: http.tls.cert_file, key_file_name: http.tls.key_file })
      : uws.App()) as App;
    app.any('/*', (res, req) => this.handle(new UwsExchange(res, req, (ex) => this.onDone(ex))));
    return new Promise((resolve, reject) => {
      app.listen(http.host, http.port, (socket) => {
        if (!socket) {
          app.close();
          reject(new Error(`cannot listen on ${http.host}:${http.port} (address in use or not available)`));
          return;
        }
        let listening: us_listen_socket | undefined = socket;
        resolve({
          stopListening: () => {
            if (listening) uws.us_listen_socket_close(listening);
            listening = undefined;
          },
          closeAll: () => app.close(),
        });
      });
    });
  }

  private listenNode(http: HttpSettings, sharedPort: boolean): Promise<Listener> {
    const exchange = (req: IncomingMessage, res: ServerResponse) => new NodeExchange(req, res, (ex) => this.onDone(ex), http.body_timeout);
    const options = {
      headersTimeout: http.header_timeout,
      requestTimeout: 0,
      keepAliveTimeout: 5_000,
      // Node looks for expired header timeouts only this often (30 s by default); often enough to cut a slow sender off near it.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, http.header_timeout / 4)),
    };
    const onRequest = (req: IncomingMessage, res: ServerResponse) => this.handle(exchange(req, res), unframedBody(req));
    const server: Server = http.tls
      ? createHttpsServer({ ...options, cert: readFileSync(http.tls.cert_file), key: readFileSync(http.tls.key_file) }, onRequest)
      : createHttpServer(options, onRequest);
    // A client that stops sending (or reading) for this long loses its connection.
    server.timeout = http.body_timeout;
    // Node's own answers to these are bare status lines; every error of the service is JSON.
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => this.refuseUnparsed(err, socket));
    // Without a listener Node closes a CONNECT request's connection without a word.
    server.on('connect', (_req: IncomingMessage, socket: Duplex) => this.refuseOnSocket(socket,
      new HttpError(405, 'method_not_allowed', 'CONNECT is not supported: this is not a proxy')));
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => this.handle(exchange(req, res),
      new HttpError(417, 'expectation_failed', `Expect: ${req.headers.expect ?? ''} is not supported; only 100-continue is`)));
    return new Promise((resolve, reject) => {
      server.once('error', (err) => reject(new Error(`cannot listen on ${http.host}:${http.port}: ${err.message}`)));
      // reusePort only when other threads share the port: a lone front still fails on a port that is taken.
      server.listen({ port: http.port, host: http.host, reusePort: sharedPort }, () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.log.error({ err }, 'http server error'));
        resolve({
          stopListening: () => {
            server.close();
            server.closeIdleConnections();
          },
          closeAll: () => server.closeAllConnections(),
        });
      });
    });
  }

  /** Routes a request and runs its handler; with `refusal`, answers that error instead. */
  private handle(ex: HttpExchange, refusal?: HttpError): void {
    this.inFlight++;
    const request: Tracked = { requestId: requestIdFrom(ex.headers['x-request-id']), route: UNMATCHED_ROUTE, errorCode: undefined };
    this.tracked.set(ex, request);
    const { route, headers } = this.router.resolve(ex.method, ex.path);
    Object.assign(ex.commonHeaders, headers);
    ex.commonHeaders['x-request-id'] = request.requestId;
    const fail = (err: HttpError) => {
      request.errorCode = err.code;
      if (err.logDetail !== undefined) this.log.warn({ req_id: request.requestId, outcome: err.code, detail: err.logDetail }, 'request refused');
      ex.fail(err);
    };
    if (this.draining) {
      fail(new HttpError(503, 'shutting_down', 'the service is shutting down', { connection: 'close' }));
      return;
    }
    if (refusal) {
      fail(refusal);
      return;
    }
    if (route instanceof HttpError) {
      fail(route);
      return;
    }
    request.route = route.pattern;
    if (route.bodyLimit !== undefined) ex.collectBody(route.bodyLimit);
    if (route.streamBody) ex.streamBody();
    Promise.resolve()
      .then(() => route.handler(ex, route.params))
      .then(
        () => { if (!ex.done) throw new Error(`handler for ${ex.method} ${ex.path} sent no response`); },
      )
      .catch((err: unknown) => {
        if (err instanceof HttpError) {
          fail(err);
          return;
        }
        this.log.error({ err: errorWithoutMessage(err), req_id: request.requestId, method: ex.method, route: route.pattern }, 'request failed');
        fail(new HttpError(500, 'internal_error', 'internal error; see the service log'));
      });
  }

  /**
   * Node's parser gave up on a request (malformed, headers too large, headers not complete within
   * http.header_timeout): the JSON error and the connection closed. When it gave up on what followed a
   * complete request (pipelined garbage, or bytes after a header value broken by CR LF), that request's answer
   * goes out first; when the body of a request already being answered is malformed, the connection just closes.
   */
  private refuseUnparsed(err: NodeJS.ErrnoException, socket: Duplex): void {
    // Closing already, or refusing once the answer under way is out: the parser sees the rest as errors too.
    if (socket.writableEnded || this.refusing.has(socket)) return;
    const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    // That answer closes the connection when it is out (the refusal of a body whose length is unknown).
    if (response?.headersSent && response.getHeader('connection') === 'close') return;
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    if (response?.req.complete) {
      this.refusing.add(socket);
      response.once('finish', () => { if (socket.writable) this.refuseOnSocket(socket, parserRefusal(err)); });
      return;
    }
    // Node's own check before it answers a client error: the socket's current response must not have begun.
    if (response?.headersSent) {
      socket.destroy();
      return;
    }
    this.refuseOnSocket(socket, parserRefusal(err));
  }

  /** A JSON error written straight to a socket Node handed over, which is then closed. */
  private refuseOnSocket(socket: Duplex, refusal: HttpError): void {
    const requestId = requestIdFrom(undefined);
    const body = JSON.stringify(errorBody(refusal.code, refusal.message));
    socket.write(`HTTP/1.1 ${statusLine(refusal.status)}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
      + Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
      + `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`);
    closeWithoutReset(socket);
    this.finished({ requestId, method: '-', route: UNMATCHED_ROUTE, status: refusal.status, durationMs: 0, outcome: refusal.code });
  }

  private onDone(ex: HttpExchange): void {
    this.inFlight--;
    this.served++;
    const request = this.tracked.get(ex);
    if (request) {
      this.tracked.delete(ex);
      this.finished({
        requestId: request.requestId,
        method: ex.method,
        route: request.route,
        status: ex.status,
        durationMs: Math.round((performance.now() - ex.startedAt) * 100) / 100,
        outcome: request.errorCode ?? plainOutcome(ex.status),
      });
    }
    if (this.draining && this.inFlight === 0) this.drained?.();
  }

  /** One log line per request (never its path, headers or body: they may carry names and secrets). */
  private finished(r: FinishedRequest): void {
    this.requestLog.info({ req_id: r.requestId, method: r.method, route: r.route, status: r.status, duration_ms: r.durationMs, outcome: r.outcome }, 'request');
    this.metrics?.record(r);
  }
}

/**
 * RFC 9112 6.3: a request whose Transfer-Encoding does not end in chunked has a body of unknown length; the
 * answer is 400 and the connection closes. Node's parser says so only after it handed the request over.
 */
function unframedBody(req: IncomingMessage): HttpError | undefined {
  const codings = req.headers['transfer-encoding'];
  if (codings === undefined || codings.split(',').pop()!.trim().toLowerCase() === 'chunked') return undefined;
  return new HttpError(400, 'malformed_request', `Transfer-Encoding '${codings}' does not end in chunked: the length of the body is unknown`, { connection: 'close' });
}

/** The answer to a request Node's HTTP parser refused. */
function parserRefusal(err: NodeJS.ErrnoException): HttpError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'header_timeout', 'the request headers did not arrive in time (http.header_timeout)');
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'headers_too_large', 'the request line and headers are too large');
    default:
      return new HttpError(400, 'malformed_request', `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`);
  }
}
