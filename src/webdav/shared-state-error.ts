// When the cluster that keeps the WebDAV state of proxies that share it (cluster.shared_state: elasticsearch) does
// not answer or refuses: the request that needed it gets a 503 that says so (davHttpError), never an answer made
// without the locks or properties of the other proxies. The error that says so; cluster-calls.ts turns the
// cluster's failures into it. Apart from that module, so that the answer's side loads no Elasticsearch client.

/** The error's code; it crosses from the dav-state actor to the front with the error (rpc.ts keeps `code`). */
export const SHARED_STATE_UNAVAILABLE = 'DAV_SHARED_STATE_UNAVAILABLE';

export class SharedStateUnavailableError extends Error {
  readonly code = SHARED_STATE_UNAVAILABLE;

  constructor(message: string) {
    super(message);
    this.name = 'SharedStateUnavailableError';
  }
}
