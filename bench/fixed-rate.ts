/**
 * Latency of requests sent at a fixed rate, open loop: each request leaves on its schedule whether or not the ones
 * before it have been answered, so that one slow answer delays no later request and each latency is what a caller
 * at that rate sees (a closed loop would send fewer requests exactly when the server is slow).
 */
import { percentile } from './stats.js';

export interface Latency {
  requests: number;
  /** Answers other than the one asked for, and requests that got none. */
  failures: number;
  p50: number;
  p99: number;
}

/** Calls `send` `rate` times a second until `until` settles; `send` resolves to whether the answer was the one asked for. */
export async function atFixedRate(rate: number, until: Promise<unknown>, send: () => Promise<boolean>): Promise<Latency> {
  const latencies: number[] = [];
  let failures = 0;
  let done = false;
  void until.then(() => (done = true), () => (done = true));
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let n = 0; !done; n++) {
    const wait = start + (n * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    inFlight.push(
      send().then(
        (expected) => {
          latencies.push(performance.now() - sent);
          if (!expected) failures++;
        },
        () => void failures++,
      ),
    );
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, failures, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}
