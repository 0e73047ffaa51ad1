// The actor side of the runtime: what every actor thread's main module calls.
// It answers the supervisor's control messages and keeps one RpcChannel per
// connected peer, so actor code only says `ctx.peer('dedupe').method()`. The
// context is generic over the peers an actor may call (a map of peer kind to
// protocol) and the protocol it serves; the service's are declared per actor
// kind in actors/kinds.ts (ActorContextOf).
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createLogger, flushLogSync, type LogSettings } from '../common/logger.js';
import { saveCompiledModules } from './compile-cache.js';
import type { ActorDetails, ActorStartData, ActorToSupervisor, ServiceSecrets, SupervisorToActor } from './control.js';
import type { InstanceName } from './instance-names.js';
import { ActorUnavailableError, RpcChannel, toWire, type Remote } from './rpc.js';
import type { PoolHealth } from './worker-pool.js';

/** A typed client for a peer, by kind or instance name; calls fail fast while that peer is down. */
export type PeerLookup<Peers> = <K extends keyof Peers & string>(name: InstanceName<K>) => Remote<Peers[K]>;

/** The link state of a peer, by kind or instance name: only of the peers this actor has a channel to. */
export type PeerLinkLookup<Peers> = (name: InstanceName<keyof Peers & string>) => PeerLink;

/**
 * Whether a peer is connected now, and which of its incarnations: `incarnation` grows with every connection to a
 * new thread of that peer. Memory a peer hands out (a SharedArrayBuffer) belongs to one incarnation.
 */
export interface PeerLink {
  readonly connected: boolean;
  readonly incarnation: number;
}

/** `Peers`: the protocol each peer kind serves; `Serves`: the protocol of this actor (see `serves`). */
export interface ActorContext<C, Peers, Serves> {
  readonly name: string;
  readonly config: C;
  readonly secrets: ServiceSecrets;
  readonly log: Logger;
  readonly peer: PeerLookup<Peers>;
  /** Names of the peers connected right now (e.g. every running `http-front#n`). */
  connectedPeers(): string[];
  /** The live link state of a peer (the same object every time, updated in place). */
  readonly link: PeerLinkLookup<Peers>;
  /**
   * Never set: it carries the type of the protocol this actor serves into runActor, which takes the actor's
   * handlers only when they serve that protocol and no method besides.
   */
  readonly serves?: Serves;
}

/** `H` when it has no member that `P` does not declare; a type with such a member does not match it. */
type Exactly<P, H> = H & { [K in Exclude<keyof H, keyof P>]: never };

interface ActorBehaviour<Handlers> {
  /**
   * Served to every peer that connects to this actor. Required: every actor serves at least its metrics to the
   * supervisor, and an actor without handlers would answer every call with an unknown-method error.
   */
  handlers: Handlers;
  /** A peer (re)connected: a new channel to it is ready for calls. */
  peerConnected?(peer: string): void;
  /** A peer's thread is gone (crashed, killed or stopped); calls to it fail until it is back. */
  peerDisconnected?(peer: string): void;
  /** Extra fields for /healthz. */
  health?(): ActorDetails;
  /** The worker pools this actor owns, by name, for /healthz (beside the actors). */
  pools?(): Record<string, PoolHealth>;
  /** Stop taking work and finish in-flight work within the timeout. */
  stop?(timeoutMs: number): Promise<void>;
  /** Synchronous last-chance cleanup before the thread dies of an uncaught error. */
  abort?(): void;
}

/**
 * Run this thread as an actor; `start` builds its behaviour from its context (annotate its parameter with the
 * actor's context type). The handlers it returns must serve the context's protocol, and nothing else.
 */
export function runActor<C extends LogSettings, Peers, Serves, H extends Serves>(
  start: (ctx: ActorContext<C, Peers, Serves>) => Promise<ActorBehaviour<Exactly<Serves, H>>>,
): void {
  const port = parentPort;
  if (!port) throw new Error('runActor must be called inside a worker thread');
  const data = workerData as ActorStartData<C>;
  const log = createLogger(data.config, { actor: data.name }, { buffered: true });
  const channels = new Map<string, RpcChannel>();
  const links = new Map<string, { connected: boolean; incarnation: number }>();
  const linkOf = (name: string) => {
    let link = links.get(name);
    if (link === undefined) links.set(name, link = { connected: false, incarnation: 0 });
    return link;
  };
  let behaviour: Partial<ActorBehaviour<Exactly<Serves, H>>> = {};
  const send = (msg: ActorToSupervisor) => port.postMessage(msg);

  const ctx: ActorContext<C, Peers, Serves> = {
    name: data.name,
    config: data.config,
    secrets: data.secrets,
    log,
    peer: <K extends keyof Peers & string>(peer: InstanceName<K>) => new Proxy({}, {
      get: (_t, method) => (...args: unknown[]) => {
        const channel = channels.get(peer);
        if (!channel) return Promise.reject(new ActorUnavailableError(peer, 'not connected'));
        return channel.call(String(method), args);
      },
    }) as Remote<Peers[K]>,
    connectedPeers: () => [...channels.keys()],
    link: linkOf,
  };

  // A crash must still release native resources (uWebSockets.js aborts the
  // whole process if a thread exits with its sockets open).
  process.on('uncaughtException', (err) => {
    log.error({ err }, 'actor crashed');
    try { behaviour.abort?.(); } finally {
      send({ type: 'failed', phase: 'run', error: toWire(err) });
      flushLogSync(log);
      process.exit(1);
    }
  });

  port.on('message', (msg: SupervisorToActor) => {
    switch (msg.type) {
      case 'activate':
        start(ctx).then(
          (b) => {
            behaviour = b;
            // Before `ready`: the first start after an install or upgrade writes the cache (a few hundred ms in the
            // http-front, more while every thread does the same), which would hold up the first requests after it.
            saveCompiledModules();
            send({ type: 'ready' });
          },
          (err: unknown) => {
            log.error({ err }, 'actor failed to start');
            send({ type: 'failed', phase: 'start', error: toWire(err) });
            flushLogSync(log);
            process.exit(1);
          },
        );
        break;
      case 'connect':
        channels.get(msg.peer)?.fail('replaced by a new connection');
        channels.set(msg.peer, new RpcChannel(msg.port, msg.peer, behaviour.handlers));
        Object.assign(linkOf(msg.peer), { connected: true, incarnation: linkOf(msg.peer).incarnation + 1 });
        behaviour.peerConnected?.(msg.peer);
        break;
      case 'disconnect':
        channels.get(msg.peer)?.fail(msg.reason);
        channels.delete(msg.peer);
        linkOf(msg.peer).connected = false;
        behaviour.peerDisconnected?.(msg.peer);
        break;
      case 'ping':
        send({ type: 'pong', id: msg.id, details: behaviour.health?.() ?? {}, pools: behaviour.pools?.() ?? {} });
        break;
      case 'stop':
        void (async () => {
          try { await behaviour.stop?.(msg.timeoutMs); } catch (err) { log.error({ err }, 'error while stopping'); }
          for (const channel of channels.values()) channel.fail('actor stopped');
          send({ type: 'stopped' });
          flushLogSync(log);
          process.exit(0);
        })();
        break;
    }
  });

}
