import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DavStateService } from '../../../actors/dav-state/service.js';
import { DavState } from '../../../actors/dav-state/state.js';
import { LocalLocks } from '../../../src/webdav/lock-store.js';
import { LockTable } from '../../../src/webdav/locks.js';
import { HINT_LOCKS, HINT_PROPERTY_RESOURCES, HINT_RETIRED } from '../../../src/webdav/state-hint.js';
import { element } from '../../../src/webdav/xml.js';
import { propertyStores } from '../../support/property-stores.js';

const at = (path: string) => ({ share: 'schule', path });
const newStore = propertyStores();
const stateOf = async (leaseTimeoutMs = 60_000) => new DavState(new LocalLocks(new LockTable()), await newStore(), leaseTimeoutMs);
const service = async () => new DavStateService(await stateOf());

describe('the dav-state service', () => {
  it('serializes gated writes of one resource: the second waits for the release', async () => {
    const s = await service();
    const gate = { principal: 'anna', targets: [], tokens: [], ask: [], lease: at('page.md') };
    const first = await s.writeGate(gate);
    let secondDone = false;
    const second = s.writeGate({ ...gate, lease: at('PAGE.md') }).then((r) => { secondDone = true; return r; });
    const other = await s.writeGate({ ...gate, lease: at('other.md') });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(secondDone, false);
    await s.release(first.leaseId!);
    assert.notEqual((await second).leaseId, undefined);
    assert.notEqual(other.leaseId, undefined);
  });

  it('a lease whose holder never releases it expires, and the next writer gets it', async () => {
    const s = new DavStateService(await stateOf(50));
    const gate = { principal: 'anna', targets: [], tokens: [], ask: [], lease: at('page.md') };
    await s.writeGate(gate);
    const started = Date.now();
    const keepAlive = setTimeout(() => undefined, 1_000); // the lease timer does not hold the event loop open
    assert.notEqual((await s.writeGate(gate)).leaseId, undefined);
    clearTimeout(keepAlive);
    assert.ok(Date.now() - started >= 40);
  });

  it('a blocked write gets no lease, and its tokens answer the If header', async () => {
    const s = await service();
    const lock = await s.lock({ resource: at('doc.md'), scope: 'exclusive', depth: '0', principal: 'anna', timeoutSeconds: 60 });
    assert.ok('granted' in lock);
    const blocked = await s.writeGate({ principal: 'ben', targets: [{ resource: at('doc.md'), depth: '0' }], tokens: [], ask: [at('doc.md')], lease: at('doc.md') });
    assert.deepEqual(blocked.blockedBy, at('doc.md'));
    assert.equal(blocked.leaseId, undefined);
    assert.deepEqual(blocked.lockTokens, [[lock.granted.token]]);
    const again = await s.writeGate({ principal: 'anna', targets: [{ resource: at('doc.md'), depth: '0' }], tokens: [lock.granted.token], ask: [], lease: at('doc.md') });
    assert.equal(again.blockedBy, undefined, 'the lease of the blocked write was given back');
    assert.notEqual(again.leaseId, undefined);
  });

  it('publishes lock and property counts in shared memory, and retires them', async () => {
    const state = await stateOf();
    const s = new DavStateService(state);
    const view = new Int32Array(await s.hint());
    assert.deepEqual([view[HINT_LOCKS], view[HINT_PROPERTY_RESOURCES]], [0, 0]);
    const lock = await s.lock({ resource: at('a'), scope: 'shared', depth: '0', principal: 'p', timeoutSeconds: 60 });
    await s.patchProperties(at('a'), [{ set: element('urn:x', 'k', ['v']) }], 'p', '1@0');
    assert.deepEqual([view[HINT_LOCKS], view[HINT_PROPERTY_RESOURCES]], [1, 1]);
    assert.deepEqual(await s.describe([at('a'), at('b')], { locks: true, properties: true }), [
      { locks: [('granted' in lock) && lock.granted].map((l) => ({ ...l, timeoutSeconds: 60 })), properties: [element('urn:x', 'k', ['v'])] },
      null,
    ]);
    await s.removed(at('a'));
    assert.deepEqual([view[HINT_LOCKS], view[HINT_PROPERTY_RESOURCES]], [0, 0]);
    state.retire();
    assert.equal(view[HINT_RETIRED], 1);
  });
});
