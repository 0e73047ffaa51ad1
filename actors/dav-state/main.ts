// The dav-state actor: one thread owns the WebDAV lock table and the dead
// properties, so that every http-front sees the same state. Alone
// (cluster.shared_state: none) it keeps the locks in memory and the properties
// in <storage.data_dir>/dav-properties.log; proxies that share state keep both
// in the Elasticsearch cluster (src/webdav/cluster-locks.ts,
// cluster-properties.ts), so that every proxy sees the same. Both are bounded
// by config webdav. Properties of files gone behind the proxy's back are
// swept (sweep.ts).
import { Registry } from 'prom-client';
import { davStateMetrics } from './metrics.js';
import type { ActorContextOf } from '../kinds.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { DeadProperties } from '../../src/webdav/dead-properties.js';
import { LocalLocks } from '../../src/webdav/lock-store.js';
import { LockTable } from '../../src/webdav/locks.js';
import type { PropertyLimits } from '../../src/webdav/property-budget.js';
import { DavStateService } from './service.js';
import { DavState } from './state.js';
import { startPropertySweep } from './sweep.js';

/** How often expired locks are dropped from the shared lock count. */
const PRUNE_INTERVAL_MS = 10_000;

runActor(async (ctx: ActorContextOf<'dav-state'>) => {
  const { config } = ctx;
  const { locks: lockBounds, dead_properties: bounds } = config.webdav;
  const limits: PropertyLimits = {
    maxPerResource: bounds.max_per_resource,
    maxResourceSize: bounds.max_resource_size,
    maxUserSize: bounds.max_user_size,
    maxTotalSize: bounds.max_total_size,
  };
  const shared = config.cluster.shared_state === 'elasticsearch';
  // Loaded only when the state is shared: a proxy alone has no use for an Elasticsearch client in this thread.
  const { locks, properties } = shared ? await (await import('./cluster-stores.js')).clusterStores(ctx, limits) : {
    locks: new LocalLocks(new LockTable({ maxPerUser: lockBounds.max_per_user })),
    properties: await DeadProperties.open(config.storage.data_dir, limits),
  };
  // A write lease outlives any single SMB request of the writer.
  const state = new DavState(locks, properties, 2 * config.smb.request_timeout, shared);
  const timer = setInterval(() => state.publish(), PRUNE_INTERVAL_MS);
  timer.unref();
  const sweep = startPropertySweep(config, ctx.secrets, state, ctx.log);
  ctx.log.info({ shared_state: config.cluster.shared_state, propertyResources: properties.size, propertyBytes: properties.bytes }, 'dav state ready');
  const registry = new Registry();
  registerStatMetrics(registry, () => state.stats(), davStateMetrics);
  return {
    handlers: servingMetrics(new DavStateService(state), registry),
    health: () => state.stats(),
    stop: async () => {
      clearInterval(timer);
      state.retire();
      await sweep?.stop();
      await properties.close();
    },
    abort: () => state.retire(),
  };
});
