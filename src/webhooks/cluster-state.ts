// Where proxies that share their webhook state keep it (cluster.shared_state: elasticsearch): two indices of
// the Elasticsearch cluster they already run for search, under cluster.index_prefix. One builder, so that the
// dedupe actor and the webhook-store reach the same nodes with the same credentials.
import { errors, type Client } from '@elastic/elasticsearch';
import type { Config } from '../config/index.js';
import type { ServiceSecrets } from '../runtime/control.js';
import { searchClientFromConfig } from '../search/client.js';

export interface ClusterIndices {
  /** One document per accepted event id (ClusterEventIds). */
  readonly events: string;
  /** The one document holding the client list (ElasticsearchWebhookClientStore). */
  readonly clients: string;
}

export function clusterIndices(config: Pick<Config, 'cluster'>): ClusterIndices {
  const prefix = config.cluster.index_prefix;
  return { events: `${prefix}-webhook-events`, clients: `${prefix}-webhook-clients` };
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
