// What a thread of Elasticsearch's JVM does, told by its name as /proc gives it (cut at 15 characters): the bench's
// CPU readings split Elasticsearch's time by it (bench/index/work-cost.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jvmThreadKind } from '../../../bench/index/work-cost.js';

describe('jvmThreadKind', () => {
  it('tells Elasticsearch\'s own threads, garbage collection, the JIT and the rest apart by their /proc names', () => {
    const kinds = Object.fromEntries(['elasticsearch[t', 'GC Thread#0', 'G1 Conc#0', 'G1 Refine#0', 'C2 CompilerThre', 'C1 CompilerThre', 'VM Thread', 'java']
      .map((name) => [name, jvmThreadKind(name)]));
    assert.deepEqual(kinds, {
      'elasticsearch[t': 'its own threads',
      'GC Thread#0': 'garbage collection',
      'G1 Conc#0': 'garbage collection',
      'G1 Refine#0': 'garbage collection',
      'C2 CompilerThre': 'JIT compiler',
      'C1 CompilerThre': 'JIT compiler',
      'VM Thread': 'other JVM threads',
      'java': 'other JVM threads',
    });
  });
});
