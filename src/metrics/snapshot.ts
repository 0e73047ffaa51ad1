// Metrics cross thread boundaries as prom-client's JSON form: each actor
// thread keeps its own registry and answers `metrics()` over the channel the
// supervisor has to it; the supervisor merges every thread's snapshot into
// one Prometheus text (counters and histograms of several http-fronts add up).
import { AggregatorRegistry, type Registry } from 'prom-client';

/** One registry's metrics as `getMetricsAsJSON()` gives them (structured-clone safe). */
export type MetricSnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** What an actor serves, beside its own protocol, so that the supervisor can collect its metrics. */
export interface MetricsSource {
  metrics(): Promise<MetricSnapshot>;
}

/** The content type of the merged text (Prometheus exposition format 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Adds `metrics()` to an actor's handlers (the object its peers, the supervisor among them, call); `refresh`, when
 * given, gathers what the registry reads that can only be had asynchronously, before each collection.
 */
export function servingMetrics<H extends object>(handlers: H, registry: Registry, refresh?: () => Promise<void>): H & MetricsSource {
  return Object.assign(handlers, {
    metrics: async () => {
      await refresh?.();
      return registry.getMetricsAsJSON();
    },
  });
}

/**
 * Merges snapshots of several registries into Prometheus text. Series with the same name and
 * labels are combined by each metric's aggregator (prom-client's default: the sum).
 */
export function mergeSnapshots(snapshots: readonly MetricSnapshot[]): Promise<string> {
  return AggregatorRegistry.aggregate(snapshots as MetricSnapshot[]).metrics();
}
