// Typed request/response over a MessagePort.
//
// We use this instead of comlink because an actor can die mid-call: when the
// supervisor reports a peer down, every call still waiting on that peer must
// fail at once with a clear error instead of hanging forever, and comlink has
// no way to reject its pending calls.
import type { MessagePort } from 'node:worker_threads';

/** The client side of a protocol: the same methods, every call async. */
export type Remote<P> = {
  [K in keyof P]: P[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never;
};

interface CallMessage { kind: 'call'; id: number; method: string; args: unknown[] }
interface ReplyOk { kind: 'reply'; id: number; ok: true; value: unknown }
interface ReplyError { kind: 'reply'; id: number; ok: false; error: WireError }
type RpcMessage = CallMessage | ReplyOk | ReplyError;

/** An error as it crosses a thread boundary: structured clone drops `code`. */
export interface WireError { name: string; message: string; code?: string }

/** The remote side failed the call; `code` survives the trip. */
class RemoteError extends Error {
  readonly code: string | undefined;
  constructor(wire: WireError) {
    super(wire.message);
    this.name = wire.name;
    this.code = wire.code;
  }
}

/** The actor that should answer is down, restarting or took too long. */
export class ActorUnavailableError extends Error {
  readonly code = 'ACTOR_UNAVAILABLE';
  constructor(readonly actor: string, reason: string) {
    super(`actor ${actor} unavailable: ${reason}`);
    this.name = 'ActorUnavailableError';
  }
}

export function toWire(err: unknown): WireError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { name: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(err) };
}

interface Pending { resolve(value: unknown): void; reject(err: Error): void; timer: NodeJS.Timeout | undefined }

/**
 * One end of a port: serves `handlers` (if given) to the other side and makes
 * calls to it. `peerName` only labels errors.
 */
export class RpcChannel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedReason: string | undefined;

  constructor(
    private readonly port: MessagePort,
    private readonly peerName: string,
    private readonly handlers: object | undefined,
    private readonly callTimeoutMs = 30_000,
  ) {
    port.on('message', (msg: RpcMessage) => this.onMessage(msg));
    port.on('close', () => this.fail('channel closed'));
  }

  /** A typed proxy whose methods send calls over this channel. */
  remote<P>(): Remote<P> {
    return new Proxy({}, {
      get: (_target, method) => (typeof method === 'string' ? (...args: unknown[]) => this.call(method, args) : undefined),
    }) as Remote<P>;
  }

  call(method: string, args: unknown[]): Promise<unknown> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new ActorUnavailableError(this.peerName, this.closedReason));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = this.callTimeoutMs > 0
        ? setTimeout(() => {
          this.pending.delete(id);
          reject(new ActorUnavailableError(this.peerName, `no answer to ${method} within ${this.callTimeoutMs} ms`));
        }, this.callTimeoutMs)
        : undefined;
      timer?.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.port.postMessage({ kind: 'call', id, method, args } satisfies CallMessage);
    });
  }

  /** Reject every waiting call and refuse new ones; the port is closed. */
  fail(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new ActorUnavailableError(this.peerName, reason));
      this.pending.delete(id);
    }
    this.port.close();
  }

  private onMessage(msg: RpcMessage): void {
    if (msg.kind === 'reply') {
      const p = this.pending.get(msg.id);
      if (!p) return; // timed out already
      this.pending.delete(msg.id);
      if (p.timer) clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new RemoteError(msg.error));
      return;
    }
    void this.answer(msg);
  }

  private async answer(msg: CallMessage): Promise<void> {
    let reply: ReplyOk | ReplyError;
    try {
      const fn = (this.handlers as Record<string, unknown> | undefined)?.[msg.method];
      if (typeof fn !== 'function') throw new Error(`${msg.method} is not a method of this actor`);
      const value: unknown = await fn.apply(this.handlers, msg.args);
      reply = { kind: 'reply', id: msg.id, ok: true, value };
    } catch (err) {
      reply = { kind: 'reply', id: msg.id, ok: false, error: toWire(err) };
    }
    if (this.closedReason === undefined) this.port.postMessage(reply);
  }
}
