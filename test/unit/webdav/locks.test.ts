import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LockTable, MAX_LOCK_SECONDS, type ActiveLock, type LockOutcome } from '../../../src/webdav/locks.js';

const at = (path: string) => ({ share: 'schule', path });
const granted = (o: LockOutcome): ActiveLock => {
  assert.ok('granted' in o, JSON.stringify(o));
  return o.granted;
};

describe('the lock table', () => {
  it('exclusive locks conflict with everything; shared with exclusive only', () => {
    const t = new LockTable();
    const a = granted(t.lock({ resource: at('doc.md'), scope: 'shared', depth: '0', principal: 'edu\\anna', timeoutSeconds: 60 }));
    granted(t.lock({ resource: at('DOC.md'), scope: 'shared', depth: '0', principal: 'edu\\ben', timeoutSeconds: 60 }));
    assert.deepEqual(t.lock({ resource: at('doc.md'), scope: 'exclusive', depth: '0', principal: 'edu\\anna', timeoutSeconds: 60 }), { conflict: at('doc.md') });
    assert.match(a.token, /^urn:uuid:[0-9a-f-]{36}$/);
    assert.equal(t.size, 2);
  });

  it('depth infinity covers the members, and a new infinite lock conflicts with locks below', () => {
    const t = new LockTable();
    const coll = granted(t.lock({ resource: at('coll'), scope: 'exclusive', depth: 'infinity', principal: 'p', timeoutSeconds: 60 }));
    assert.deepEqual(t.covering(at('coll/a/b.md')).map((l) => l.token), [coll.token]);
    assert.deepEqual(t.covering(at('collection')), []);
    assert.ok('conflict' in t.lock({ resource: at('coll/x'), scope: 'shared', depth: '0', principal: 'p', timeoutSeconds: 60 }));
    const t2 = new LockTable();
    granted(t2.lock({ resource: at('a/b/c'), scope: 'exclusive', depth: '0', principal: 'p', timeoutSeconds: 60 }));
    assert.ok('conflict' in t2.lock({ resource: at('a'), scope: 'exclusive', depth: 'infinity', principal: 'p', timeoutSeconds: 60 }));
    granted(t2.lock({ resource: at('a'), scope: 'exclusive', depth: '0', principal: 'p', timeoutSeconds: 60 }));
  });

  it('a write is blocked unless its principal submits the token of every lock on or (for depth infinity) below it', () => {
    const t = new LockTable();
    const l = granted(t.lock({ resource: at('dir/doc.md'), scope: 'exclusive', depth: '0', principal: 'anna', timeoutSeconds: 60 }));
    const write = [{ resource: at('dir/doc.md'), depth: '0' as const }];
    assert.equal(t.blocker('anna', [], write)?.token, l.token);
    assert.equal(t.blocker('anna', [l.token], write), undefined);
    assert.equal(t.blocker('ben', [l.token], write)?.token, l.token, 'a token is only good for its owner');
    assert.equal(t.blocker('anna', [], [{ resource: at('dir'), depth: '0' }]), undefined);
    assert.equal(t.blocker('anna', [], [{ resource: at('dir'), depth: 'infinity' }])?.token, l.token);
    assert.equal(t.blocker('anna', [], [{ resource: { share: 'verwaltung', path: 'dir/doc.md' }, depth: '0' }]), undefined);
  });

  it('a principal holds at most maxPerUser active locks; expired and released ones do not count', () => {
    let now = 0;
    const t = new LockTable({ maxPerUser: 2, now: () => now });
    const lock = (path: string, principal = 'anna', timeoutSeconds = 60) =>
      t.lock({ resource: at(path), scope: 'shared', depth: '0', principal, timeoutSeconds });
    const first = granted(lock('a', 'anna', 10));
    granted(lock('a'));
    assert.deepEqual(lock('b'), { limit: 'max_per_user' });
    granted(lock('b', 'ben'));
    assert.equal(t.unlock(at('a'), first.token, 'anna'), 'unlocked');
    granted(lock('b'));
    now = 61_000;
    granted(lock('c'));
  });

  it('refresh, unlock and removal', () => {
    let now = 0;
    const t = new LockTable({ now: () => now });
    const l = granted(t.lock({ resource: at('c'), scope: 'exclusive', depth: 'infinity', principal: 'anna', timeoutSeconds: 100 }));
    now = 50_000;
    assert.equal(t.refresh(at('c/member'), [l.token], 'anna', 200)?.timeoutSeconds, 200, 'refreshed through a member');
    assert.equal(t.refresh(at('c'), [l.token], 'ben', 200), undefined);
    assert.equal(t.refresh(at('other'), [l.token], 'anna', 200), undefined);
    assert.equal(t.unlock(at('c'), 'urn:uuid:none', 'anna'), 'no-such-lock');
    assert.equal(t.unlock(at('c'), l.token, 'ben'), 'not-owner');
    assert.equal(t.unlock(at('c/x'), l.token, 'anna'), 'unlocked');
    const m = granted(t.lock({ resource: at('c/x'), scope: 'exclusive', depth: '0', principal: 'anna', timeoutSeconds: 100 }));
    t.removeAt(at('C'));
    assert.equal(t.unlock(at('c/x'), m.token, 'anna'), 'no-such-lock');
  });

  it('locks expire; Infinite and huge timeouts are capped', () => {
    let now = 0;
    const t = new LockTable({ now: () => now });
    granted(t.lock({ resource: at('a'), scope: 'exclusive', depth: '0', principal: 'p', timeoutSeconds: 10 }));
    const inf = granted(t.lock({ resource: at('b'), scope: 'exclusive', depth: '0', principal: 'p', timeoutSeconds: Infinity }));
    assert.equal(inf.timeoutSeconds, MAX_LOCK_SECONDS);
    now = 10_000;
    assert.equal(t.size, 1);
    granted(t.lock({ resource: at('a'), scope: 'exclusive', depth: '0', principal: 'q', timeoutSeconds: 10 }));
  });
  it('a table kept elsewhere: the snapshot holds the active locks with their expiry, and a table made from it grants and refuses alike', () => {
    let now = 1_000_000;
    const t = new LockTable({ now: () => now, maxPerUser: 2 });
    const before = t.revision;
    const kept = granted(t.lock({ resource: at('coll'), scope: 'exclusive', depth: 'infinity', principal: 'p', timeoutSeconds: 60 }));
    granted(t.lock({ resource: at('short.md'), scope: 'exclusive', depth: '0', principal: 'q', timeoutSeconds: 1 }));
    assert.equal(t.revision, before + 2);
    now += 2_000;
    const snapshot = t.snapshot();
    assert.deepEqual(snapshot.map((l) => [l.token, l.expiresAt]), [[kept.token, 1_060_000]], 'the expired lock is left out');
    const again = new LockTable({ now: () => now, maxPerUser: 2 }, snapshot);
    assert.ok('conflict' in again.lock({ resource: at('coll/a.md'), scope: 'shared', depth: '0', principal: 'q', timeoutSeconds: 60 }));
    assert.equal(again.revision, 0, 'a refused lock changes nothing that must be written back');
    assert.equal(again.refresh(at('coll'), [kept.token], 'p', 600)?.timeoutSeconds, 600);
    assert.equal(again.revision, 1);
    again.removeAt(at('elsewhere'));
    assert.equal(again.revision, 1);
    again.removeAt(at('coll'));
    assert.equal(again.revision, 2);
    assert.equal(t.covering(at('coll/a.md')).length, 1, 'the snapshot is a copy');
  });
});
