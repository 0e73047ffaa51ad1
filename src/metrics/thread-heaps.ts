// The V8 heap of each thread, as metrics: the supervisor reports its actor threads (and their spares), an actor
// the threads of the pools it owns (only the thread that started a worker can ask V8 about its heap).
import type { HeapInfo } from 'node:v8';
import type { StatMetric } from './stat-metrics.js';

/** V8 heap statistics by thread name (an actor's, its spare's as `<actor> (spare)`, a pool thread's as `<pool>#<n>`). */
export type ThreadHeaps = Record<string, HeapInfo>;

const byThread = (heaps: ThreadHeaps, read: (h: HeapInfo) => number): Record<string, number> =>
  Object.fromEntries(Object.entries(heaps).map(([thread, heap]) => [thread, read(heap)]));

export const threadHeapMetrics: readonly StatMetric<ThreadHeaps>[] = [
  { name: 'fileproxy_thread_heap_used_bytes', help: 'V8 heap in use by each actor and pool thread (live objects and garbage not yet collected)', type: 'gauge', label: 'thread', read: (h) => byThread(h, (x) => x.used_heap_size) },
  { name: 'fileproxy_thread_heap_physical_bytes', help: 'Memory the V8 heap of each actor and pool thread holds from the system (all spaces, compiled code included)', type: 'gauge', label: 'thread', read: (h) => byThread(h, (x) => x.total_physical_size) },
  { name: 'fileproxy_thread_heap_malloced_bytes', help: 'Memory V8 itself holds through malloc in each actor and pool thread', type: 'gauge', label: 'thread', read: (h) => byThread(h, (x) => x.malloced_memory) },
  { name: 'fileproxy_thread_external_bytes', help: 'Memory outside the V8 heap held by JavaScript objects of each actor and pool thread (Buffers, ArrayBuffers)', type: 'gauge', label: 'thread', read: (h) => byThread(h, (x) => x.external_memory) },
];
