// The checks before a WebDAV write (src/webdav/write-check.ts), with dav-state and the share replaced by
// stand-ins: which of them is asked, and what each outcome answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../src/http/http-error.js';
import type { DavResource } from '../../../src/webdav/dav-path.js';
import { LeaseQueue } from '../../../src/webdav/leases.js';
import { entryEtag, type DavEntry } from '../../../src/webdav/properties.js';
import { checkWrite, type WriteCheckDeps, type WriteGate, type WriteGateResult, type WriteRequest } from '../../../src/webdav/write-check.js';
import { parseIfHeader } from '../../../src/webdav/if-header.js';

const FILE: DavEntry = { share: 'schule', path: 'a/seite.md', name: 'seite.md', isCollection: false, size: 4, fileId: '77', mtimeMs: 1_000, birthtimeMs: 500 };

function setup(options: { locks?: number; gate?: WriteGateResult; local?: boolean; headers?: Record<string, string> } = {}) {
  const gates: WriteGate[] = [];
  const released: number[] = [];
  const deps: WriteCheckDeps = {
    davState: {
      writeGate: async (gate) => { gates.push(gate); return options.gate ?? { lockTokens: [] }; },
      release: async (id) => { released.push(id); },
    },
    hints: { counts: async () => ({ locks: options.locks ?? 0, propertyResources: 0 }) },
    localLeases: options.local ? new LeaseQueue(60_000) : undefined,
    locate: (raw) => (raw.startsWith('/dav/schule/') ? { share: 'schule', path: raw.slice('/dav/schule/'.length), trailingSlash: false } : undefined),
  };
  const headers = options.headers ?? {};
  const request: WriteRequest = {
    ex: { method: 'PUT', headers },
    path: FILE.path,
    principal: 'edu\\anna',
    storage: { stat: async (path) => (path === FILE.path ? FILE : null) },
    resource: (path = FILE.path): DavResource => ({ share: 'schule', path }),
    ifHeader: () => (headers['if'] === undefined ? undefined : parseIfHeader(headers['if'])),
  };
  return { deps, request, gates, released };
}

const target = { resource: { share: 'schule', path: FILE.path }, depth: '0' as const };

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(() => assert.fail('expected a refusal'), (e: unknown) => e);
  assert.ok(err instanceof HttpError);
  return err;
}

describe('the checks before a write', () => {
  it('ask dav-state nothing while there are no locks, no If header and no lease', async () => {
    const { deps, request, gates } = setup();
    const check = await checkWrite(deps, request, [target], { state: async () => FILE });
    assert.equal(check.current, FILE);
    assert.equal(gates.length, 0);
    check.release();
  });

  it('answer 412 when If-Match names another version, and release the shared lease they took', async () => {
    const { deps, request, gates, released } = setup({ headers: { 'if-match': '"other"' }, gate: { lockTokens: [], leaseId: 9 } });
    const err = await refusal(checkWrite(deps, request, [target], { lease: true }));
    assert.equal(err.status, 412);
    assert.deepEqual(gates[0]?.lease, { share: 'schule', path: FILE.path });
    assert.deepEqual(released, [9]);
  });

  it('pass when If-Match names the current version', async () => {
    const { deps, request } = setup({ headers: { 'if-match': entryEtag(FILE) } });
    (await checkWrite(deps, request, [target])).release();
  });

  it('answer 423 for a lock whose token the request does not submit', async () => {
    const { deps, request, gates } = setup({ locks: 1, gate: { lockTokens: [], blockedBy: { share: 'schule', path: 'a' } } });
    const err = await refusal(checkWrite(deps, request, [target]));
    assert.equal(err.status, 423);
    assert.equal(gates[0]?.principal, 'edu\\anna');
  });

  it('evaluate the If header against the lock tokens dav-state reports', async () => {
    const token = 'urn:uuid:6c2a0c6e-0000-4000-8000-000000000001';
    const held = setup({ locks: 1, headers: { if: `(<${token}>)` }, gate: { lockTokens: [[token]] } });
    (await checkWrite(held.deps, held.request, [target])).release();
    assert.deepEqual(held.gates[0]?.tokens, [token]);
    const gone = setup({ locks: 1, headers: { if: `(<${token}>)` }, gate: { lockTokens: [[]] } });
    assert.equal((await refusal(checkWrite(gone.deps, gone.request, [target]))).status, 412);
  });

  it('serialize leased writes of one resource in this thread when it is the only front', async () => {
    const { deps, request, gates } = setup({ local: true });
    const first = await checkWrite(deps, request, [target], { lease: true });
    let secondDone = false;
    const second = checkWrite(deps, request, [target], { lease: true }).then((check) => { secondDone = true; return check; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(secondDone, false);
    first.release();
    (await second).release();
    assert.equal(gates.length, 0);
  });
});
