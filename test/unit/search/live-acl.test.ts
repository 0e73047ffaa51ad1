// The live ACL check's decisions, with descriptors given by the test instead of a file server (the path through
// Samba is test/integration/wiki/live-index.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LiveAcl, type IndexedEntry } from '../../../src/search/live-acl.js';
import type { Viewer } from '../../../src/search/query.js';
import { SmbError } from '../../../src/smb/errors.js';
import { AceType, type SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import type { PageAddress } from '../../../src/wiki/page-change.js';

const LEHRER = 'S-1-5-21-1-2-3-1101';
const SCHUELER = 'S-1-5-21-1-2-3-1102';
const ANNA = 'S-1-5-21-1-2-3-1201';

function sd(allow: string[], deny: string[] = []): SecurityDescriptor {
  const ace = (type: number, sid: string) => ({ type, flags: 0, mask: 0x1200a9, sid });
  return {
    revision: 1, control: 0, owner: null, group: null, sacl: null,
    dacl: { revision: 2, aces: [...deny.map((sid) => ace(AceType.ACCESS_DENIED, sid)), ...allow.map((sid) => ace(AceType.ACCESS_ALLOWED, sid))] },
  };
}

const entry = (path: string, allow: string[], deny: string[] = []): IndexedEntry & { title: string } =>
  ({ share: 'schule', path, acl_allow: [...allow].sort(), acl_deny: [...deny].sort(), title: path });
const anna: Viewer = { allowSids: [LEHRER, ANNA], denySids: [LEHRER, ANNA], shares: ['schule'] };

/** A LiveAcl over descriptors the test sets, counting reads and collecting stale reports. */
function checker(live: Map<string, SecurityDescriptor | Error>, maxAgeMs = 60_000, backoffMs = 60_000) {
  const stale: (PageAddress & { how: string })[] = [];
  let reads = 0;
  const check = new LiveAcl({
    readSecurity: async ({ path }) => {
      reads++;
      const found = live.get(path);
      if (found === undefined) throw new SmbError('NOT_FOUND', `${path}: STATUS_OBJECT_NAME_NOT_FOUND`);
      if (found instanceof Error) throw found;
      return found;
    },
    servers: new Map([['schule', 'fs1']]),
    maxAgeMs,
    backoffMs,
    stale: (page, how) => stale.push({ ...page, how }),
  });
  return { check, stale, reads: () => reads };
}

describe('LiveAcl', () => {
  it('keeps an entry whose live ACL is the indexed one, and reports nothing', async () => {
    const { check, stale } = checker(new Map([['a.md', sd([LEHRER])]]));
    const result = await check.check([entry('a.md', [LEHRER])], anna);
    assert.deepEqual(result.visible.map((e) => e.path), ['a.md']);
    assert.equal(result.hidden, 0);
    assert.deepEqual(stale, []);
  });

  it('hides an entry whose live ACL no longer allows the caller, and reports it stale once per read', async () => {
    const { check, stale } = checker(new Map([['a.md', sd([SCHUELER])], ['b.md', sd([LEHRER])]]));
    const entries = [entry('a.md', [LEHRER, SCHUELER]), entry('b.md', [LEHRER])];
    const first = await check.check(entries, anna);
    const second = await check.check(entries, anna);
    assert.deepEqual(first.visible.map((e) => e.path), ['b.md']);
    assert.equal(first.hidden, 1);
    assert.deepEqual(second.visible.map((e) => e.path), ['b.md']);
    assert.deepEqual(stale, [{ server: 'fs1', share: 'schule', path: 'a.md', how: 'changed' }]);
  });

  it('matches a live deny against the whole token, though the allow set is narrowed', async () => {
    const { check } = checker(new Map([['a.md', sd([LEHRER], [ANNA])]]));
    const narrowed: Viewer = { allowSids: [LEHRER], denySids: [LEHRER, ANNA], shares: ['schule'] };
    const result = await check.check([entry('a.md', [LEHRER])], narrowed);
    assert.deepEqual(result.visible, []);
  });

  it('keeps an entry whose live ACL changed but still allows the caller, and reports it stale', async () => {
    const { check, stale } = checker(new Map([['a.md', sd([LEHRER, SCHUELER])]]));
    const result = await check.check([entry('a.md', [LEHRER])], anna);
    assert.deepEqual(result.visible.map((e) => e.path), ['a.md']);
    assert.equal(stale.length, 1);
  });

  it('hides a page that is gone or that the indexer may no longer open', async () => {
    const denied = new SmbError('ACCESS_DENIED', 'b.md: STATUS_ACCESS_DENIED');
    const { check, stale } = checker(new Map<string, SecurityDescriptor | Error>([['b.md', denied]]));
    const result = await check.check([entry('a.md', [LEHRER]), entry('b.md', [LEHRER])], anna);
    assert.deepEqual(result.visible, []);
    assert.deepEqual(stale.map((page) => `${page.path} ${page.how}`), ['a.md gone', 'b.md gone']);
  });

  it('lets the index decide while the file server cannot be asked, leaves it alone for the back-off, then asks again', async () => {
    const live = new Map<string, SecurityDescriptor | Error>([['a.md', new SmbError('CONNECTION_CLOSED', 'connection closed')]]);
    const { check, reads } = checker(live, 60_000, 50);
    const unreachable = await check.check([entry('a.md', [LEHRER])], anna);
    assert.deepEqual(unreachable.visible.map((e) => e.path), ['a.md'], 'as the index says');
    live.set('a.md', sd([SCHUELER]));
    const during = await check.check([entry('a.md', [LEHRER]), entry('c.md', [LEHRER])], anna);
    assert.deepEqual(during.visible.map((e) => e.path), ['a.md', 'c.md'], 'not asked during the back-off');
    assert.equal(reads(), 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const after = await check.check([entry('a.md', [LEHRER])], anna);
    assert.deepEqual(after.visible, [], 'asked again after the back-off');
    assert.equal(reads(), 2);
    assert.equal(check.stats().unanswered, 3);
  });

  it('reads a page once within max_age and again after it', async () => {
    const { check, reads } = checker(new Map([['a.md', sd([LEHRER])]]), 50);
    await Promise.all([check.check([entry('a.md', [LEHRER])], anna), check.check([entry('a.md', [LEHRER])], anna)]);
    assert.equal(reads(), 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await check.check([entry('a.md', [LEHRER])], anna);
    assert.equal(reads(), 2);
  });

  it('shows nothing of a share this service does not serve', async () => {
    const { check, reads } = checker(new Map([['a.md', sd([LEHRER])]]));
    const result = await check.check([{ ...entry('a.md', [LEHRER]), share: 'andere' }], anna);
    assert.deepEqual(result.visible, []);
    assert.equal(reads(), 0);
  });
});
