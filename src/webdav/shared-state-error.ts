// When the cluster that keeps the WebDAV state of proxies that share it (cluster.shared_state: elasticsearch) does
// not answer or refuses: the request that needed it gets a 503 that says so (davHttpError), never an answer made
// without the locks or properties of the other proxies; the dav-state actor logs the first failure of a streak.
import { errors } from '@elastic/elasticsearch';
import type { Logger } from '../common/logger.js';

/** The error's code; it crosses from the dav-state actor to the front with the error (rpc.ts keeps `code`). */
export const SHARED_STATE_UNAVAILABLE = 'DAV_SHARED_STATE_UNAVAILABLE';

export class SharedStateUnavailableError extends Error {
  readonly code = SHARED_STATE_UNAVAILABLE;

  constructor(message: string) {
    super(message);
    this.name = 'SharedStateUnavailableError';
  }
}

/** Runs a store's calls to the cluster: a failure of Elasticsearch becomes a SharedStateUnavailableError. */
export class ClusterCalls {
  private failing = false;

  constructor(private readonly index: string, private readonly log: Logger) {}

  async run<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.failing = false;
      return result;
    } catch (err) {
      if (!(err instanceof errors.ElasticsearchClientError)) throw err;
      if (!this.failing) this.log.warn({ index: this.index, error: err.message }, `the WebDAV state the proxies share failed (${what}); WebDAV requests that need it get 503 until it answers`);
      this.failing = true;
      throw new SharedStateUnavailableError(`${what} in ${this.index}: ${err.message}`);
    }
  }
}
