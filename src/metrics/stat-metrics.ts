// Metrics read at scrape time from numbers a component keeps anyway (the
// same ones its actor reports in health()), so nothing is counted twice.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface StatMetric<S> {
  name: string;
  help: string;
  /** `counter` for totals that only grow while the thread lives (reset by a restart, as Prometheus expects). */
  type: 'gauge' | 'counter';
  /** The label that tells apart the values when `read` returns several, keyed by that label's value. */
  label?: string;
  read(stats: S): number | Readonly<Record<string, number>>;
}

/** Registers each metric so that it reads `stats()` whenever the registry is collected. */
export function registerStatMetrics<S>(registry: Registry, stats: () => S, metrics: readonly StatMetric<S>[]): void {
  for (const metric of metrics) {
    const config = { name: metric.name, help: metric.help, labelNames: metric.label ? [metric.label] : [], registers: [registry] };
    const collect = function (this: Gauge | Counter): void {
      this.reset();
      const value = metric.read(stats());
      if (typeof value === 'number') {
        record(this, {}, value);
        return;
      }
      for (const [labelValue, n] of Object.entries(value)) record(this, { [metric.label!]: labelValue }, n);
    };
    if (metric.type === 'gauge') new Gauge({ ...config, collect });
    else new Counter({ ...config, collect });
  }
}

function record(metric: Gauge | Counter, labels: Record<string, string>, value: number): void {
  if (metric instanceof Gauge) metric.set(labels, value);
  else metric.inc(labels, value);
}
