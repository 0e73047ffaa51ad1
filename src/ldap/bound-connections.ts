// The service account's LDAPS connections, kept open and reused: a group-name or user lookup costs one search on
// a connection that is already bound, not a TCP + TLS handshake and a bind. Their number is bounded, so however
// many lookups callers ask for at once (a flood of unseen names in X-Service-Groups), the DC sees at most `size`
// connections of this process's service account; further lookups wait for a free one.
import type { Client } from 'ldapts';
import type { LdapClientFactory } from './connection.js';

interface BoundConnectionsOptions {
  /** Connections open at most. */
  readonly size: number;
  /** An idle connection is closed after this long (so that a process or test that is done can exit). */
  readonly idleMs: number;
}

interface Idle {
  readonly client: Client;
  readonly timer: NodeJS.Timeout;
}

export class BoundConnections {
  private readonly idle: Idle[] = [];
  private readonly waiting: ((client: Client | undefined) => void)[] = [];
  private open = 0;
  private opened = 0;

  /** `bind` authenticates a new connection; a connection is opened (and bound) only when none is idle. */
  constructor(
    private readonly connect: LdapClientFactory,
    private readonly bind: (client: Client) => Promise<void>,
    private readonly options: BoundConnectionsOptions,
  ) {}

  /** Connections opened since the start (each one a TCP + TLS handshake and a bind at the DC). */
  get openedConnections(): number {
    return this.opened;
  }

  /**
   * Runs `work` on a bound connection. A connection on which `work` failed is closed rather than reused (it may
   * be broken or half-way through something); one the DC closed while idle is replaced.
   */
  async run<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.acquire();
    let healthy = false;
    try {
      const result = await work(client);
      healthy = true;
      return result;
    } finally {
      this.release(client, healthy);
    }
  }

  /** Closes the idle connections; busy ones close when they are released. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((entry) => this.discard(entry)));
  }

  private async acquire(): Promise<Client> {
    const entry = this.idle.pop();
    if (entry !== undefined) {
      clearTimeout(entry.timer);
      if (entry.client.isConnected) return entry.client;
      // The DC closed it while it was idle: a new connection takes its slot.
      void entry.client.unbind().catch(() => undefined);
      return this.openInSlot();
    }
    if (this.open < this.options.size) {
      this.open++;
      return this.openInSlot();
    }
    // release() hands over its connection, or (undefined) the slot of one it closed.
    const handed = await new Promise<Client | undefined>((resolve) => this.waiting.push(resolve));
    return handed ?? this.openInSlot();
  }

  /** A new bound connection in a slot already counted in `open`; the slot is freed when that fails. */
  private async openInSlot(): Promise<Client> {
    this.opened++;
    const client = this.connect();
    try {
      await this.bind(client);
      return client;
    } catch (err) {
      this.freeSlot();
      await client.unbind().catch(() => undefined);
      throw err;
    }
  }

  private release(client: Client, healthy: boolean): void {
    if (!healthy || !client.isConnected) {
      void client.unbind().catch(() => undefined);
      this.freeSlot();
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) {
      next(client);
      return;
    }
    const entry: Idle = { client, timer: setTimeout(() => this.expire(entry), this.options.idleMs) };
    entry.timer.unref();
    this.idle.push(entry);
  }

  /** A closed connection's slot goes to the first waiter, if any, else it is free. */
  private freeSlot(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(undefined);
    else this.open--;
  }

  private expire(entry: Idle): void {
    const at = this.idle.indexOf(entry);
    if (at === -1) return;
    this.idle.splice(at, 1);
    void this.discard(entry);
  }

  private async discard(entry: Idle): Promise<void> {
    clearTimeout(entry.timer);
    this.freeSlot();
    await entry.client.unbind().catch(() => undefined);
  }
}
