// Where this proxy checks whether a webhook event id was accepted before: in the dedupe actor's ring of its own, or
// in the cluster that proxies sharing state keep the ids in (cluster-event-ids.ts). Apart from that module, so that
// a proxy alone decides it without loading an Elasticsearch client.
import type { Config } from '../config/index.js';

/**
 * Whether this proxy checks event ids in the cluster: it shares state, and the balancer does not send each sender
 * to one proxy (cluster.event_ids: routed_by_key keeps a ring per proxy, as alone).
 */
export function eventIdsInCluster(config: Pick<Config, 'cluster'>): boolean {
  return config.cluster.shared_state === 'elasticsearch' && config.cluster.event_ids === 'shared';
}
