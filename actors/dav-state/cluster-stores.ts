// Where the dav-state actor keeps the locks and dead properties of proxies that share them (cluster.shared_state:
// elasticsearch): in the cluster. main.ts loads this module only then, so that a proxy alone loads no
// Elasticsearch client in this thread.
import type { ActorContextOf } from '../kinds.js';
import { clusterIndices, clusterStateClient } from '../../src/search/shared-state.js';
import { ClusterLocks } from '../../src/webdav/cluster-locks.js';
import { ClusterProperties } from '../../src/webdav/cluster-properties.js';
import type { LockStore } from '../../src/webdav/lock-store.js';
import type { PropertyLimits } from '../../src/webdav/property-budget.js';
import type { PropertyStore } from '../../src/webdav/property-store.js';

/** The stores in the cluster the proxies share; their indices are made when missing (another proxy may at once). */
export async function clusterStores(ctx: ActorContextOf<'dav-state'>, limits: PropertyLimits): Promise<{ locks: LockStore; properties: PropertyStore }> {
  const { config } = ctx;
  const indices = clusterIndices(config);
  const replicas = config.elasticsearch.index.number_of_replicas;
  const client = clusterStateClient(config, ctx.secrets);
  const locks = new ClusterLocks(client, indices.davLocks, { maxPerUser: config.webdav.locks.max_per_user }, ctx.log);
  const properties = new ClusterProperties(client, indices.davProperties, limits, ctx.log);
  await locks.open(replicas);
  await properties.open(replicas);
  return { locks, properties };
}
