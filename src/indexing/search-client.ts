// The Elasticsearch client of indexing (the reconciler's thread and each indexer thread): one builder, so that both
// stages talk to the same nodes with the same timeout.
import type { Client } from '@elastic/elasticsearch';
import type { Config } from '../config/index.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { createSearchClient } from '../search/client.js';

/**
 * Background writes: a _bulk of up to 5 MiB may take longer than the search default of 10 s on a busy sidecar, and
 * a timed-out batch stops the whole pass. No request waits on indexing's calls.
 */
const INDEXING_REQUEST_TIMEOUT_MS = 60_000;

export function indexingSearchClient(config: Config, secrets: ServiceSecrets): Client {
  return createSearchClient({ nodes: config.elasticsearch.nodes, ...secrets.elasticsearch }, { requestTimeoutMs: INDEXING_REQUEST_TIMEOUT_MS });
}
