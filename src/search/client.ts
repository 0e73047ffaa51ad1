/**
 * The Elasticsearch client the wiki libraries are given; one per thread. With several nodes the client's own
 * connection pool spreads requests over them, retries a request that failed on a node (connection refused or
 * reset, a timeout, 502/503/504) on another one, marks the failed node dead and pings it back to life after a
 * growing pause. Sniffing stays off: the nodes' published addresses need not be reachable from here.
 */
import { Client, type ClientOptions } from '@elastic/elasticsearch';
import type { Config } from '../config/index.js';

/** Where the nodes are and how to log on to them (elasticsearch.nodes, .auth, .tls in config.yml). */
export interface SearchConnection {
  nodes: readonly string[];
  auth?: { apiKey: string } | { username: string; password: string };
  /** PEM of the CA that signed the nodes' certificates (https nodes). */
  caCertificate?: string;
}

/** What a client is for, and how long one of its requests may take. */
const REQUEST_TIMEOUT_MS = {
  /** Searches (the http-front): a hung node must not hold a search for long. */
  search: 10_000,
  /**
   * Indexing (the reconciler and each indexer thread): a _bulk of up to 5 MiB may take longer than a search's
   * timeout on a busy sidecar, and a timed-out batch stops the whole pass. No request waits on indexing's calls.
   */
  indexing: 60_000,
  /** A /readyz probe (the supervisor): a cluster slower than this counts as down (PROBE_TIMEOUT_MS of src/metrics/readiness.ts). */
  readiness: 10_000,
  /** `fileproxy doctor`: someone waits at a terminal. */
  doctor: 5_000,
  /**
   * The webhook state proxies share (cluster.shared_state): a check-and-insert of an event id waits on it on the
   * request path, so short, with the client's retries on another node (one per node) behind it.
   */
  'shared-state': 3_000,
} as const;

export type SearchClientUse = keyof typeof REQUEST_TIMEOUT_MS;

/**
 * The one way the service builds its Elasticsearch client: the nodes of config.yml's `elasticsearch` block, the
 * credentials and CA read from the files it names (`secrets`: ServiceSecrets.elasticsearch, or doctor's own
 * reading), and the request timeout of its `use`; `retries`: see SearchClientOptions.maxRetries.
 */
export function searchClientFromConfig(
  elasticsearch: Pick<Config['elasticsearch'], 'nodes'>,
  secrets: Omit<SearchConnection, 'nodes'> | undefined,
  use: SearchClientUse,
  retries: Pick<SearchClientOptions, 'maxRetries'> = {},
): Client {
  return createSearchClient({ ...secrets, nodes: elasticsearch.nodes }, { requestTimeoutMs: REQUEST_TIMEOUT_MS[use], ...retries });
}

interface SearchClientOptions {
  /** Per request; a hung node must not hold a search for long. Default: a search's. */
  requestTimeoutMs?: number;
  /** Retries of a request, each on another node when there are several; default: one per node, at least 1. */
  maxRetries?: number;
}

/** A client of `connection`: searchClientFromConfig's for the service; tests and benchmarks name the testbed's nodes. */
export function createSearchClient(connection: SearchConnection, options: SearchClientOptions = {}): Client {
  const { nodes, auth, caCertificate } = connection;
  const clientOptions: ClientOptions = {
    nodes: [...nodes],
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS.search,
    maxRetries: options.maxRetries ?? Math.max(1, nodes.length),
  };
  if (auth !== undefined) clientOptions.auth = auth;
  if (caCertificate !== undefined) clientOptions.tls = { ca: caCertificate };
  return new Client(clientOptions);
}
