import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EtagSyntaxError, etagOf, parseEtagList } from '../../../src/webdav/etag.js';
import { IfHeaderError, evaluateIf, ifResources, parseIfHeader, submittedTokens } from '../../../src/webdav/if-header.js';
import { evaluatePreconditions } from '../../../src/webdav/preconditions.js';
import { ifRangeHolds, requestedRange } from '../../../src/webdav/range.js';

const MTIME = Date.UTC(2026, 10, 21, 12, 0, 0, 500);
const ETAG = etagOf('123456789', 4096, MTIME);
const current = { etag: ETAG, mtimeMs: MTIME };

describe('entity tags', () => {
  it('are strong and change with file id, size and modification time', () => {
    assert.match(ETAG, /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
    assert.notEqual(etagOf('123456790', 4096, MTIME), ETAG);
    assert.notEqual(etagOf('123456789', 4097, MTIME), ETAG);
    assert.notEqual(etagOf('123456789', 4096, MTIME + 1), ETAG);
  });

  it('parse as lists, * or not at all', () => {
    assert.deepEqual(parseEtagList(' "a" , W/"b"'), [{ weak: false, tag: '"a"' }, { weak: true, tag: '"b"' }]);
    assert.equal(parseEtagList('*'), '*');
    for (const bad of ['a', '"a" "b"', '"a', '', 'W/']) assert.throws(() => parseEtagList(bad), EtagSyntaxError, bad);
  });
});

describe('preconditions (RFC 9110 §13.2.2)', () => {
  it('If-Match: strong match or 412, also when the resource is missing', () => {
    assert.equal(evaluatePreconditions('PUT', current, { 'if-match': ETAG }), 'proceed');
    assert.equal(evaluatePreconditions('PUT', current, { 'if-match': `"x", ${ETAG}` }), 'proceed');
    assert.equal(evaluatePreconditions('PUT', current, { 'if-match': '"old"' }), 412);
    assert.equal(evaluatePreconditions('PUT', current, { 'if-match': `W/${ETAG}` }), 412);
    assert.equal(evaluatePreconditions('PUT', null, { 'if-match': '*' }), 412);
    assert.equal(evaluatePreconditions('PUT', current, { 'if-match': '*' }), 'proceed');
  });

  it('If-None-Match: 304 for GET/HEAD, 412 for writes; * means "exists"', () => {
    assert.equal(evaluatePreconditions('GET', current, { 'if-none-match': ETAG }), 304);
    assert.equal(evaluatePreconditions('HEAD', current, { 'if-none-match': `W/${ETAG}` }), 304);
    assert.equal(evaluatePreconditions('GET', current, { 'if-none-match': '"other"' }), 'proceed');
    assert.equal(evaluatePreconditions('PUT', current, { 'if-none-match': '*' }), 412);
    assert.equal(evaluatePreconditions('PUT', null, { 'if-none-match': '*' }), 'proceed');
  });

  it('dates count in whole seconds and only when no entity tag header applies', () => {
    const second = new Date(Math.floor(MTIME / 1000) * 1000).toUTCString();
    assert.equal(evaluatePreconditions('GET', current, { 'if-modified-since': second }), 304);
    assert.equal(evaluatePreconditions('GET', current, { 'if-modified-since': new Date(MTIME - 2000).toUTCString() }), 'proceed');
    assert.equal(evaluatePreconditions('GET', current, { 'if-modified-since': second, 'if-none-match': '"other"' }), 'proceed');
    assert.equal(evaluatePreconditions('PUT', current, { 'if-unmodified-since': new Date(MTIME - 2000).toUTCString() }), 412);
    assert.equal(evaluatePreconditions('PUT', current, { 'if-unmodified-since': 'not a date' }), 'proceed');
  });
});

describe('byte ranges', () => {
  it('serves one range, a suffix or an open end; ignores several ranges and garbage', () => {
    assert.deepEqual(requestedRange('bytes=0-99', 1000), { start: 0, end: 99 });
    assert.deepEqual(requestedRange('bytes=900-', 1000), { start: 900, end: 999 });
    assert.deepEqual(requestedRange('bytes=-100', 1000), { start: 900, end: 999 });
    assert.deepEqual(requestedRange('bytes=990-2000', 1000), { start: 990, end: 999 });
    assert.equal(requestedRange('bytes=0-1,5-6', 1000), undefined);
    assert.equal(requestedRange('items=0-1', 1000), undefined);
    assert.equal(requestedRange('bytes=5-1', 1000), undefined);
    assert.equal(requestedRange('bytes=1000-', 1000), 'unsatisfiable');
    assert.equal(requestedRange('bytes=-0', 1000), 'unsatisfiable');
  });

  it('If-Range keeps the range only for the same version', () => {
    assert.ok(ifRangeHolds(undefined, ETAG, MTIME));
    assert.ok(ifRangeHolds(ETAG, ETAG, MTIME));
    assert.ok(!ifRangeHolds('"old"', ETAG, MTIME));
    assert.ok(ifRangeHolds(new Date(Math.floor(MTIME / 1000) * 1000).toUTCString(), ETAG, MTIME));
    assert.ok(!ifRangeHolds(new Date(MTIME - 5000).toUTCString(), ETAG, MTIME));
  });
});

describe('the If header (RFC 4918 §10.4)', () => {
  const token = 'urn:uuid:2f1f6a4e-1c52-4c3a-9d1e-0c5e2a8f7b11';
  const state = (tokens: string[], etag: string | null = ETAG) => () => ({ etag, lockTokens: new Set(tokens) });

  it('parses untagged and tagged lists with Not, tokens and entity tags', () => {
    assert.deepEqual(parseIfHeader(`(<${token}> [${ETAG}]) (Not <DAV:no-lock>)`), [
      { resource: undefined, conditions: [{ not: false, kind: 'token', value: token }, { not: false, kind: 'etag', value: ETAG }] },
      { resource: undefined, conditions: [{ not: true, kind: 'token', value: 'DAV:no-lock' }] },
    ]);
    const tagged = parseIfHeader(`<http://h/dav/schule/a> (<${token}>) <http://h/dav/schule/b> (["x"])`);
    assert.deepEqual(ifResources(tagged), ['http://h/dav/schule/a', 'http://h/dav/schule/b']);
    assert.deepEqual(submittedTokens(parseIfHeader(`(<${token}>) (Not <urn:uuid:other>)`)), [token]);
    for (const bad of ['', '<x>', '(', '()', '(<a>', '(foo)', '(<a>) <r> (<b>)']) assert.throws(() => parseIfHeader(bad), IfHeaderError, bad);
  });

  it('holds when one list holds: the litmus conditional PUTs', () => {
    const locked = state([token]);
    assert.ok(evaluateIf(parseIfHeader(`(<${token}> [${ETAG}])`), locked));
    assert.ok(!evaluateIf(parseIfHeader(`(<DAV:no-lock> [${ETAG}])`), locked));
    assert.ok(evaluateIf(parseIfHeader(`(<${token}>) (Not <DAV:no-lock>)`), locked));
    assert.ok(evaluateIf(parseIfHeader(`(<${token}x>) (Not <DAV:no-lock>)`), locked));
    assert.ok(!evaluateIf(parseIfHeader(`(<${token}> ["bad"]) (Not <DAV:no-lock> ["bad"])`), locked));
    assert.ok(!evaluateIf(parseIfHeader('(<DAV:no-lock>)'), state([])));
    assert.ok(!evaluateIf(parseIfHeader(`([${ETAG}])`), state([], null)));
  });
});
