// The uWebSockets.js server of one http-front thread: accepts requests,
// dispatches them through the router, counts what is in flight so that a
// shutdown can drain, and closes every socket before the thread exits.
import uws from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import type { Config } from '../../src/config/index.js';
import { HttpExchange } from '../../src/http/exchange.js';
import { HttpError } from '../../src/http/http-error.js';
import type { Router } from '../../src/http/router.js';

/** The binary has `close()` (it closes every socket of the app); its typings lack it. */
type App = uws.TemplatedApp & { close(): void };

export class HttpServer {
  private listenSocket: uws.us_listen_socket | undefined;
  private inFlight = 0;
  private served = 0;
  private draining = false;
  private drained: (() => void) | undefined;

  private constructor(private readonly app: App, private readonly router: Router, private readonly log: Logger) {
    app.any('/*', (res, req) => this.handle(res, req));
  }

  static listen(http: Config['http'], router: Router, log: Logger): Promise<HttpServer> {
    const app = (http.tls
      ? uws.SSLApp({ cert_file_name: http.tls.cert_file, key_file_name: http.tls.key_file })
      : uws.App()) as App;
    const server = new HttpServer(app, router, log);
    return new Promise((resolve, reject) => {
      app.listen(http.host, http.port, (socket) => {
        if (!socket) {
          app.close();
          reject(new Error(`cannot listen on ${http.host}:${http.port} (address in use or not available)`));
          return;
        }
        server.listenSocket = socket;
        log.info({ host: http.host, port: http.port, tls: Boolean(http.tls) }, 'listening');
        resolve(server);
      });
    });
  }

  stats(): Record<string, number> {
    return { inFlight: this.inFlight, served: this.served };
  }

  /** Stop accepting, let in-flight requests finish (up to the timeout), close all. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.stopListening();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    this.app.close();
  }

  /** Synchronous close for a dying thread. */
  closeNow(): void {
    this.stopListening();
    this.app.close();
  }

  private stopListening(): void {
    if (this.listenSocket) uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
  }

  private handle(res: uws.HttpResponse, req: uws.HttpRequest): void {
    this.inFlight++;
    const ex = new HttpExchange(res, req, () => this.onDone());
    if (this.draining) {
      ex.fail(new HttpError(503, 'shutting_down', 'the service is shutting down', { connection: 'close' }));
      return;
    }
    const route = this.router.match(ex.method, ex.path);
    if (route instanceof HttpError) {
      ex.fail(route);
      return;
    }
    if (route.bodyLimit !== undefined) ex.collectBody(route.bodyLimit);
    Promise.resolve()
      .then(() => route.handler(ex, route.params))
      .then(
        () => { if (!ex.done) throw new Error(`handler for ${ex.method} ${ex.path} sent no response`); },
      )
      .catch((err: unknown) => {
        if (err instanceof HttpError) {
          ex.fail(err);
          return;
        }
        this.log.error({ err, method: ex.method, path: ex.path }, 'request failed');
        ex.fail(new HttpError(500, 'internal_error', 'internal error; see the service log'));
      });
  }

  private onDone(): void {
    this.inFlight--;
    this.served++;
    if (this.draining && this.inFlight === 0) this.drained?.();
  }
}
