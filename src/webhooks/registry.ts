import {
  type MaskedWebhookClient,
  type WebhookClient,
  generateApiKey,
  generateClientId,
  maskClient,
} from './client.js';
import { ClientKeyIndex, type WebhookClientLookup } from './key-index.js';
import { ClientListChangedError, type WebhookClientStore } from './store.js';

/** How often a change is redone on a list another proxy changed meanwhile before it fails. */
const CHANGE_ATTEMPTS = 5;

export class UnsupportedUserAgentError extends Error {
  override readonly name = 'UnsupportedUserAgentError';
  constructor(readonly userAgent: string, readonly supported: readonly string[]) {
    super(`User-Agent '${userAgent}' is not a supported service; choose one of: ${supported.join(', ')}`);
  }
}

interface WebhookRegistryOptions {
  /** `webhooks.supported_user_agents`: the services a client may be created for. */
  readonly supportedUserAgents: readonly string[];
  /** Clock for `created_at`; injectable for tests. */
  readonly now?: () => Date;
}

export interface DeleteResult {
  readonly deleted: string[];
  readonly notFound: string[];
}

/**
 * The webhook clients, in memory for lookups and persisted through a store on every change.
 * Key lookups go through a ClientKeyIndex (timing-safe). Changes are serialised and written
 * before they become visible, so a failed write leaves the registry as it was.
 */
export class WebhookClientRegistry implements WebhookClientLookup {
  private clients: readonly WebhookClient[];
  private index: ClientKeyIndex;
  private pending: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;

  private constructor(
    private readonly store: WebhookClientStore,
    private readonly options: WebhookRegistryOptions,
    clients: readonly WebhookClient[],
  ) {
    this.now = options.now ?? (() => new Date());
    this.clients = clients;
    this.index = new ClientKeyIndex(clients);
  }

  static async open(store: WebhookClientStore, options: WebhookRegistryOptions): Promise<WebhookClientRegistry> {
    return new WebhookClientRegistry(store, options, await store.load());
  }

  findByKey(apiKey: string): WebhookClient | undefined {
    return this.index.findByKey(apiKey);
  }

  /** Every client with its key, for the read replicas of the HTTP threads. */
  all(): readonly WebhookClient[] {
    return this.clients;
  }

  /** Creates a client for a supported User-Agent with a freshly generated key. */
  create(userAgent: string): Promise<WebhookClient> {
    if (!this.options.supportedUserAgents.includes(userAgent)) {
      return Promise.reject(new UnsupportedUserAgentError(userAgent, this.options.supportedUserAgents));
    }
    return this.change((clients) => {
      const client: WebhookClient = {
        id: generateClientId(),
        user_agent: userAgent,
        api_key: generateApiKey(),
        created_at: this.now().toISOString(),
      };
      return { clients: [...clients, client], result: client };
    });
  }

  /** The settings list: keys masked, optionally only the clients of one User-Agent. */
  list(filter: { userAgent?: string } = {}): MaskedWebhookClient[] {
    return this.clients
      .filter((c) => filter.userAgent === undefined || c.user_agent === filter.userAgent)
      .map(maskClient);
  }

  /** One client with its key in clear, for the reveal action; undefined if the id is unknown. */
  reveal(id: string): WebhookClient | undefined {
    return this.clients.find((c) => c.id === id);
  }

  /** Deletes the given clients; their keys are rejected from the moment this resolves. */
  delete(ids: readonly string[]): Promise<DeleteResult> {
    return this.change((clients) => {
      const wanted = new Set(ids);
      const deleted = clients.filter((c) => wanted.has(c.id)).map((c) => c.id);
      const notFound = [...wanted].filter((id) => !deleted.includes(id));
      const remaining = deleted.length > 0 ? clients.filter((c) => !wanted.has(c.id)) : undefined;
      return { clients: remaining, result: { deleted, notFound } };
    });
  }

  /**
   * Reads the store again (a store several proxies share, polled): answers whether the list differs from the one
   * held, which it then replaces. Runs between changes, like one.
   */
  reload(): Promise<boolean> {
    return this.serialised(async () => {
      const loaded = await this.store.load();
      if (sameClients(loaded, this.clients)) return false;
      this.replace(loaded);
      return true;
    });
  }

  /**
   * Runs one change after the previous ones; `clients: undefined` means nothing changed. When another proxy changed
   * the shared list first, the change is applied again to that list (a create stays a create, a delete deletes
   * what is still there).
   */
  private change<T>(
    apply: (clients: readonly WebhookClient[]) => { clients: WebhookClient[] | undefined; result: T },
  ): Promise<T> {
    return this.serialised(async () => {
      for (let attempt = 1; ; attempt++) {
        const next = apply(this.clients);
        if (next.clients === undefined) return next.result;
        try {
          await this.store.save(next.clients);
        } catch (err) {
          if (!(err instanceof ClientListChangedError) || attempt === CHANGE_ATTEMPTS) throw err;
          this.replace(await this.store.load());
          continue;
        }
        this.replace(next.clients);
        return next.result;
      }
    });
  }

  private replace(clients: readonly WebhookClient[]): void {
    this.clients = clients;
    this.index = new ClientKeyIndex(clients);
  }

  private serialised<T>(run: () => Promise<T>): Promise<T> {
    const result = this.pending.then(run, run);
    this.pending = result.catch(() => undefined);
    return result;
  }
}

/** Clients are created and deleted, never changed: the same ids are the same list. */
function sameClients(a: readonly WebhookClient[], b: readonly WebhookClient[]): boolean {
  if (a.length !== b.length) return false;
  const ids = new Set(a.map((c) => c.id));
  return b.every((c) => ids.has(c.id));
}
