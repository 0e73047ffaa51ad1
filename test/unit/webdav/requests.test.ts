import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DavRequestError, destinationPath, parseDepth, parseLockDepth, parseLockInfo, parseLockToken, parseOverwrite, parsePropertyUpdate,
  parsePropfind, parseTimeout,
} from '../../../src/webdav/requests.js';

const body = (text: string) => Buffer.from(text);

describe('WebDAV request bodies', () => {
  it('PROPFIND: empty body is allprop; prop, propname, allprop with include; unknown elements ignored', () => {
    assert.deepEqual(parsePropfind(Buffer.alloc(0)), { kind: 'allprop', include: [] });
    assert.deepEqual(parsePropfind(body('<propfind xmlns="DAV:"><prop><getetag/><x:a xmlns:x="urn:x"/></prop></propfind>')),
      { kind: 'prop', names: [{ ns: 'DAV:', name: 'getetag' }, { ns: 'urn:x', name: 'a' }] });
    assert.deepEqual(parsePropfind(body('<D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>')), { kind: 'propname' });
    assert.deepEqual(parsePropfind(body('<propfind xmlns="DAV:"><foobar/><allprop/></propfind>')), { kind: 'allprop', include: [] });
    assert.throws(() => parsePropfind(body('<propfind xmlns="urn:other"><allprop/></propfind>')), DavRequestError);
    assert.throws(() => parsePropfind(body('<foo>')), DavRequestError);
  });

  it('PROPPATCH: set and remove in document order', () => {
    const patches = parsePropertyUpdate(body(
      '<propertyupdate xmlns="DAV:"><remove><prop><r xmlns="urn:n"/></prop></remove>'
      + '<set><prop><r xmlns="urn:n">x</r></prop></set><set><prop><r xmlns="urn:n">y</r></prop></set></propertyupdate>'));
    assert.deepEqual(patches.map((p) => ('set' in p ? `set ${p.set.children[0]}` : `remove ${p.remove.name}`)), ['remove r', 'set x', 'set y']);
    assert.throws(() => parsePropertyUpdate(body('<propertyupdate xmlns="DAV:"/>')), /names no property/);
  });

  it('LOCK: scope, write type and owner', () => {
    const info = parseLockInfo(body('<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>me</D:owner></D:lockinfo>'));
    assert.equal(info.scope, 'shared');
    assert.equal(info.owner?.name, 'owner');
    assert.throws(() => parseLockInfo(body('<D:lockinfo xmlns:D="DAV:"><D:locktype><D:write/></D:locktype></D:lockinfo>')), /lockscope/);
    assert.throws(() => parseLockInfo(body('<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:read/></D:locktype></D:lockinfo>')), /write locks/);
  });
});

describe('WebDAV request headers', () => {
  it('Depth, Overwrite, Timeout and Lock-Token', () => {
    assert.equal(parseDepth(undefined, 'infinity'), 'infinity');
    assert.equal(parseDepth(' Infinity ', '0'), 'infinity');
    assert.throws(() => parseDepth('2', '0'), DavRequestError);
    assert.throws(() => parseLockDepth('1'), /Depth 1/);
    assert.equal(parseOverwrite(undefined), true);
    assert.equal(parseOverwrite('F'), false);
    assert.throws(() => parseOverwrite('yes'), DavRequestError);
    assert.equal(parseTimeout('Second-3600'), 3600);
    assert.equal(parseTimeout('Infinite, Second-4100000000'), Infinity);
    assert.equal(parseTimeout('Minute-5'), undefined);
    assert.equal(parseLockToken('<urn:uuid:abc>'), 'urn:uuid:abc');
    assert.throws(() => parseLockToken('urn:uuid:abc'), DavRequestError);
  });

  it('Destination: the raw path of an absolute URI or path, before any normalisation', () => {
    assert.equal(destinationPath('http://h:8080/dav/schule/a%20b?x'), '/dav/schule/a%20b');
    assert.throws(() => destinationPath('http://h:8080/dav/schule/a#b'), /fragment/);
    assert.equal(destinationPath('http://h/dav/schule/../verwaltung/x'), '/dav/schule/../verwaltung/x');
    assert.equal(destinationPath('/dav/schule/x'), '/dav/schule/x');
    assert.throws(() => destinationPath(undefined), /Destination header/);
    assert.throws(() => destinationPath('ftp://h/x'), DavRequestError);
  });
});
