// The dav-state actor: one thread owns the WebDAV lock table and the dead
// properties, so that every http-front sees the same state. Properties live
// in <storage.data_dir>/dav-properties.log; both are bounded by config webdav.
// Properties of files gone behind the proxy's back are swept (sweep.ts).
import { Registry } from 'prom-client';
import { davStateMetrics } from './metrics.js';
import type { ActorContextOf } from '../kinds.js';
import { servingMetrics } from '../../src/metrics/snapshot.js';
import { registerStatMetrics } from '../../src/metrics/stat-metrics.js';
import { runActor } from '../../src/runtime/actor.js';
import { DeadProperties } from '../../src/webdav/dead-properties.js';
import { LockTable } from '../../src/webdav/locks.js';
import { DavStateService } from './service.js';
import { DavState } from './state.js';
import { startPropertySweep } from './sweep.js';

/** How often expired locks are dropped from the shared lock count. */
const PRUNE_INTERVAL_MS = 10_000;

runActor(async (ctx: ActorContextOf<'dav-state'>) => {
  const { locks, dead_properties: bounds } = ctx.config.webdav;
  const dir = ctx.config.storage.data_dir;
  const properties = await DeadProperties.open(dir, {
    maxPerResource: bounds.max_per_resource,
    maxResourceSize: bounds.max_resource_size,
    maxUserSize: bounds.max_user_size,
    maxTotalSize: bounds.max_total_size,
  });
  // A write lease outlives any single SMB request of the writer.
  const state = new DavState(new LockTable({ maxPerUser: locks.max_per_user }), properties, 2 * ctx.config.smb.request_timeout);
  const timer = setInterval(() => state.publish(), PRUNE_INTERVAL_MS);
  timer.unref();
  const sweep = startPropertySweep(ctx.config, ctx.secrets, state, ctx.log);
  ctx.log.info({ dir, propertyResources: properties.size, propertyBytes: properties.bytes }, 'dav state ready');
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
