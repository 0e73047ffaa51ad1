/**
 * The Elasticsearch client the wiki libraries are given; one per thread. With several nodes the client's own
 * connection pool spreads requests over them, retries a request that failed on a node (connection refused or
 * reset, a timeout, 502/503/504) on another one, marks the failed node dead and pings it back to life after a
 * growing pause. Sniffing stays off: the nodes' published addresses need not be reachable from here.
 */
import { Client, type ClientOptions } from '@elastic/elasticsearch';

/** Where the nodes are and how to log on to them (elasticsearch.nodes, .auth, .tls in config.yml). */
export interface SearchConnection {
  nodes: readonly string[];
  auth?: { apiKey: string } | { username: string; password: string };
  /** PEM of the CA that signed the nodes' certificates (https nodes). */
  caCertificate?: string;
}

interface SearchClientOptions {
  /** Per request; a hung node must not hold a search for long. Default 10 s. */
  requestTimeoutMs?: number;
  /** Retries of a request, each on another node when there are several; default: one per node, at least 1. */
  maxRetries?: number;
}

/** A client of `connection`, or of one node given by its URL (tests, the testbed). */
export function createSearchClient(connection: SearchConnection | string, options: SearchClientOptions = {}): Client {
  const { nodes, auth, caCertificate } = typeof connection === 'string' ? { nodes: [connection] } as SearchConnection : connection;
  const clientOptions: ClientOptions = {
    nodes: [...nodes],
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? Math.max(1, nodes.length),
  };
  if (auth !== undefined) clientOptions.auth = auth;
  if (caCertificate !== undefined) clientOptions.tls = { ca: caCertificate };
  return new Client(clientOptions);
}
