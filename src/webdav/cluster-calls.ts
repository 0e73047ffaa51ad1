// The calls of the dav-state actor's cluster stores (cluster-locks.ts, cluster-properties.ts): a failure of
// Elasticsearch becomes a SharedStateUnavailableError, which the request that needed the state answers with 503;
// the first failure of a streak is logged.
import { errors } from '@elastic/elasticsearch';
import type { Logger } from '../common/logger.js';
import { SharedStateUnavailableError } from './shared-state-error.js';

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
