/** The Elasticsearch client the wiki libraries are given; one per thread. */
import { Client } from '@elastic/elasticsearch';

export interface SearchClientOptions {
  /** Per request; a hung sidecar must not hold a search for long. Default 10 s. */
  requestTimeoutMs?: number;
  /** Retries on connection errors; default 1. */
  maxRetries?: number;
}

export function createSearchClient(url: string, options: SearchClientOptions = {}): Client {
  return new Client({
    node: url,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 1,
  });
}
