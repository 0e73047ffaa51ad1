// What proxies that share state (cluster.shared_state: elasticsearch) keep it with: indices under
// cluster.index_prefix in the Elasticsearch cluster they already run for search. The indices, the client, the index
// creation and the reading of Elasticsearch's answers are one here, so that every actor reaches the same nodes the
// same way, and one list names every index the proxies share.
import { errors, type Client } from '@elastic/elasticsearch';
import type { Config } from '../config/index.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { searchClientFromConfig } from './client.js';

export interface ClusterIndices {
  /** One document per accepted webhook event id (src/webhooks/cluster-event-ids.ts). */
  readonly events: string;
  /** The one document holding the webhook client list (src/webhooks/cluster-client-store.ts). */
  readonly clients: string;
  /** The one document holding every WebDAV lock (src/webdav/cluster-locks.ts). */
  readonly davLocks: string;
  /** One document per resource with WebDAV dead properties (src/webdav/cluster-properties.ts). */
  readonly davProperties: string;
}

export function clusterIndices(config: Pick<Config, 'cluster'>): ClusterIndices {
  const prefix = config.cluster.index_prefix;
  return { events: `${prefix}-webhook-events`, clients: `${prefix}-webhook-clients`, davLocks: `${prefix}-dav-locks`, davProperties: `${prefix}-dav-properties` };
}

export function clusterStateClient(config: Config, secrets: ServiceSecrets): Client {
  return searchClientFromConfig(config.elasticsearch, secrets.elasticsearch, 'shared-state');
}

/** Creates the index unless it exists (another proxy may create it at the same moment). */
export async function ensureIndex(client: Client, index: string, body: { settings: Record<string, unknown>; mappings: Record<string, unknown> }): Promise<void> {
  if (await client.indices.exists({ index })) return;
  try {
    await client.indices.create({ index, ...body });
  } catch (err) {
    if (!(err instanceof errors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception')) throw err;
  }
}

/**
 * Whether Elasticsearch answered with this status: 409 when a write found the document (id, or seq_no/primary_term)
 * taken, 404 when it found none.
 */
export function answeredWith(err: unknown, status: 404 | 409): boolean {
  return err instanceof errors.ResponseError && err.meta.statusCode === status;
}

/** Compare-and-set attempts of one change before it fails: other proxies' writes that got in first each cost one. */
const CAS_ATTEMPTS = 50;

/**
 * Runs `attempt` (read, change, write back with compare-and-set) again while its write answers one of `conflicts`
 * (409: another proxy wrote since the read; 404 where a document the read found may be gone), at most CAS_ATTEMPTS
 * times; any other failure, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, conflicts: readonly (404 | 409)[] = [409]): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (err) {
      if (!conflicts.some((status) => answeredWith(err, status)) || tried === CAS_ATTEMPTS) throw err;
    }
  }
}
