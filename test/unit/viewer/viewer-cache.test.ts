import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReusableViewerAnswer, ViewerQuery } from '../../../src/viewer/viewer.js';
import { ViewerAnswerCache, VISIBILITY_GENERATION } from '../../../src/viewer/viewer-cache.js';

const anna: ViewerQuery = { user: 'anna', password: 'pw', groupsHeader: 'Lehrer', serviceUserHeader: undefined, clientAddress: '127.0.0.1' };

function setup(reusableFor: number | null = 1_000) {
  let now = 1_000_000;
  let epoch = new Int32Array(new SharedArrayBuffer(4));
  const asked: ViewerQuery[] = [];
  const cache = new ViewerAnswerCache({
    epoch: () => epoch,
    resolve: async (query): Promise<ReusableViewerAnswer> => {
      asked.push(query);
      const answer = { ok: true as const, account: 'anna', userSid: 'S-1', allowSids: [`S-${asked.length}`], denySids: [], shares: ['s'] };
      return reusableFor === null ? { answer } : { answer, reusableUntil: now + reusableFor };
    },
    now: () => now,
  });
  return {
    cache, asked,
    advance: (ms: number) => { now += ms; },
    bumpVisibility: () => Atomics.add(epoch, VISIBILITY_GENERATION, 1),
    restartResolver: () => { epoch = new Int32Array(new SharedArrayBuffer(4)); },
  };
}

describe('ViewerAnswerCache', () => {
  it('reuses an answer until the resolver\'s caches it came from expire, then asks again', async () => {
    const { cache, asked, advance } = setup();
    const first = await cache.resolve(anna);
    advance(999);
    assert.equal(await cache.resolve({ ...anna, clientAddress: '10.0.0.1' }), first, 'the client address is not part of the identity');
    assert.equal(asked.length, 1);
    advance(1);
    assert.notEqual(await cache.resolve(anna), first);
    assert.equal(asked.length, 2);
  });

  it('asks again after a visibility change and after a restart of the resolver', async () => {
    const { cache, asked, bumpVisibility, restartResolver } = setup();
    await cache.resolve(anna);
    bumpVisibility();
    await cache.resolve(anna);
    await cache.resolve(anna);
    assert.equal(asked.length, 2);
    restartResolver();
    await cache.resolve(anna);
    assert.equal(asked.length, 3);
  });

  it('keeps answers of other passwords, group headers and named users apart', async () => {
    const { cache, asked } = setup();
    await cache.resolve(anna);
    await cache.resolve({ ...anna, password: 'other' });
    await cache.resolve({ ...anna, groupsHeader: 'Lehrer, Admins' });
    await cache.resolve({ ...anna, groupsHeader: undefined });
    await cache.resolve({ ...anna, serviceUserHeader: 'ben' });
    assert.equal(asked.length, 5);
  });

  it('keys a ticket holder by the SID of the ticket\'s PAC, not by the name the ticket spells', async () => {
    const { cache, asked } = setup();
    const byTicket: ViewerQuery = { ...anna, password: '', negotiated: { sid: 'S-1-5-21-1-2-3-1105' } };
    const first = await cache.resolve(byTicket);
    assert.equal(await cache.resolve({ ...byTicket, user: 'anna@EDU.TEST' }), first, 'another spelling of the same account');
    assert.notEqual(await cache.resolve({ ...byTicket, negotiated: { sid: 'S-1-5-21-1-2-3-1106' } }), first, 'the same name, another account');
    assert.notEqual(await cache.resolve({ ...anna, password: '' }), first, 'a Basic caller with an empty password is no ticket holder');
    assert.equal(asked.length, 3);
  });

  it('never reuses an answer the resolver did not vouch for', async () => {
    const { cache, asked } = setup(null);
    await cache.resolve(anna);
    await cache.resolve(anna);
    assert.equal(asked.length, 2);
  });
});
