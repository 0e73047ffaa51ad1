// The scale bench's system profile: how `perf script` lines are folded into process kinds and functions, and
// which functions it says grew per unit of work.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldSamples, grewMost, perKind, type ProcessKind } from '../../../bench/system-profile.js';

const SCRIPT = [
  '            smbd 4242/4242      7f1b18393cf7 memcpy (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '            smbd 4242/4242  ffffffff81234567 d_lookup ([kernel.kallsyms])',
  '            smbd 4242/4242  ffffffff81234567 d_lookup ([kernel.kallsyms])',
  ' C2 CompilerThre 29586/29601      7f1b18393cf7 RegionNode::pinned (/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so)',
  ' elasticsearch[t 29586/29623      7f1afaaa3e84 [unknown] (/tmp/perf-29586.map)',
  '      http-front 30758/30766           1075bec v8::internal::Foo<(Bar)1>::baz (/opt/node/bin/node)',
  '         swapper     0/0     ffffffff81000000 default_idle ([kernel.kallsyms])',
  'not a sample line',
].join('\n');

const kindOf = (pid: number): ProcessKind => (pid === 4242 ? 'smbd' : pid === 29586 ? 'Elasticsearch' : pid === 30758 ? 'service' : 'other');

describe('system profile', () => {
  const samples = foldSamples(SCRIPT, kindOf);
  const count = (kind: ProcessKind, fn: string) => [...samples.values()].find((s) => s.kind === kind && s.fn === fn)?.count;

  it('folds samples by process kind and function, names JIT code and leaves the idle task out', () => {
    assert.equal(count('smbd', 'd_lookup [kernel.kallsyms]'), 2);
    assert.equal(count('smbd', 'memcpy [libc.so.6]'), 1);
    assert.equal(count('Elasticsearch', 'RegionNode::pinned [libjvm.so]'), 1);
    assert.equal(count('Elasticsearch', '(unnamed) [JIT code]'), 1);
    assert.equal(count('service', 'v8::internal::Foo<(Bar)1>::baz [node]'), 1);
    assert.equal([...samples.values()].reduce((n, s) => n + s.count, 0), 6);
  });

  it('ranks functions by how much their CPU per unit of work grew', () => {
    const first = { profile: { samples }, units: 10 };
    const doubled = new Map([...samples].map(([k, s]) => [k, { ...s, count: s.fn.startsWith('d_lookup') ? s.count * 20 : s.count }]));
    const second = { profile: { samples: doubled }, units: 10 };
    const [top] = grewMost(first, second, 1);
    assert.equal(top!.fn, 'd_lookup [kernel.kallsyms]');
    assert.ok(top!.after > top!.before);
    assert.ok(perKind(second.profile, 10).smbd > perKind(first.profile, 10).smbd);
  });
});
