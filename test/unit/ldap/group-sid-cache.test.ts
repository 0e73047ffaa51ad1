import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CachedGroupSidResolver, type GroupSidResolver } from '../../../src/ldap/group-sid-cache.js';

const SIDS: Record<string, string> = { lehrer: 'S-1-5-21-1-2-3-1102', 'lehrkräfte mathe': 'S-1-5-21-1-2-3-1103' };

function fakeDirectory() {
  const asked: string[][] = [];
  const state = { up: true };
  const directory: GroupSidResolver = {
    async resolveGroupSids(names) {
      asked.push([...names]);
      if (!state.up) throw new Error('directory down');
      return new Map(names.flatMap((n) => (SIDS[n.toLowerCase()] ? [[n, SIDS[n.toLowerCase()]!] as const] : [])));
    },
  };
  return { directory, asked, state };
}

function setup() {
  let now = 1_700_000_000_000;
  const fake = fakeDirectory();
  const cache = new CachedGroupSidResolver(fake.directory, { ttlMs: 300_000, negativeTtlMs: 30_000, now: () => now });
  return { ...fake, cache, advance: (ms: number) => (now += ms) };
}

describe('CachedGroupSidResolver', () => {
  it('asks the directory once for all misses and answers repeats from the cache', async () => {
    const { cache, asked } = setup();
    const first = await cache.resolveGroupSids(['Lehrer', 'Lehrkräfte Mathe', 'Unbekannt']);
    assert.deepEqual(Object.fromEntries(first), { Lehrer: SIDS['lehrer'], 'Lehrkräfte Mathe': SIDS['lehrkräfte mathe'] });
    const again = await cache.resolveGroupSids(['LEHRER', 'Unbekannt']);
    assert.deepEqual(Object.fromEntries(again), { LEHRER: SIDS['lehrer'] });
    assert.deepEqual(asked, [['Lehrer', 'Lehrkräfte Mathe', 'Unbekannt']]);
  });

  it('forgets unknown names after the negative TTL and known ones after the TTL', async () => {
    const { cache, asked, advance } = setup();
    await cache.resolveGroupSids(['Lehrer', 'Unbekannt']);
    advance(30_001);
    await cache.resolveGroupSids(['Lehrer', 'Unbekannt']);
    assert.deepEqual(asked.at(-1), ['Unbekannt']);
    advance(300_000);
    await cache.resolveGroupSids(['Lehrer']);
    assert.deepEqual(asked.at(-1), ['Lehrer']);
    assert.equal(asked.length, 3);
  });

  it('passes directory errors on without caching them', async () => {
    const { cache, asked, state } = setup();
    state.up = false;
    await assert.rejects(cache.resolveGroupSids(['Lehrer']), /directory down/);
    state.up = true;
    assert.equal((await cache.resolveGroupSids(['Lehrer'])).get('Lehrer'), SIDS['lehrer']);
    assert.equal(asked.length, 2);
  });

  it('makes no directory call for an empty list', async () => {
    const { cache, asked } = setup();
    assert.equal((await cache.resolveGroupSids([])).size, 0);
    assert.equal(asked.length, 0);
  });
});
