// A TCP relay between the service and a testbed server, which a test can take down and bring back to simulate an
// outage without touching the server itself: the service sees what a stopped server gives (open connections cut, new
// ones refused), while the server stays up for the other test files that use it meanwhile, and nobody waits out
// its restart (an Elasticsearch node's took 15-30 s of the serial tier, with its index's recovery).
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './ports.js';

/** The port a URL without one means, for the schemes the testbed's servers speak. */
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ldaps:': 636 };

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** How many connections it accepted (a KDC gets one per message: a test counts the client's messages). */
  accepted = 0;

  private constructor(readonly port: number, private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.up();
    return proxy;
  }

  /** A relay in front of the server that `url` names, and the same URL through the relay. */
  static async inFrontOf(url: string): Promise<{ relay: TcpProxy; url: string }> {
    const target = new URL(url);
    const port = Number(target.port || DEFAULT_PORTS[target.protocol]);
    if (!port) throw new Error(`${url} names no port, and ${target.protocol} has no default known here`);
    const relay = await TcpProxy.start({ host: target.hostname, port });
    const path = target.pathname === '/' ? '' : target.pathname;
    return { relay, url: `${target.protocol}//127.0.0.1:${relay.port}${path}` };
  }

  /** Connections accepted while held, relayed on release(). */
  private held: Socket[] | undefined;

  /** Accept and relay connections (again); nothing to do when it does. */
  up(): Promise<void> {
    if (this.server) return Promise.resolve();
    const server = createServer((client) => {
      this.accepted++;
      this.track(client);
      client.on('error', () => client.destroy());
      if (this.held) this.held.push(client);
      else this.relay(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  /** A server that does not answer: new connections are accepted but wait, silent, until release(). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const client of waiting) if (!client.destroyed) this.relay(client);
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    this.track(upstream);
    for (const socket of [client, upstream]) socket.on('error', () => { client.destroy(); upstream.destroy(); });
    client.pipe(upstream).pipe(client);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  /** The outage: close the port (new connections are refused) and cut every open connection. */
  down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
