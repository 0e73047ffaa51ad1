import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DavPathError, hrefOf, isWithin, parseDavPath } from '../../../src/webdav/dav-path.js';
import { PATH_ATTACKS } from './path-attacks.js';

const SHARES = ['schule', 'verwaltung'];

describe('WebDAV request paths', () => {
  it('decodes once and names the configured share', () => {
    assert.deepEqual(parseDavPath('/dav/Schule/Fachschaften/Deutsch/.wiki/lekt%C3%BCre.md', SHARES), {
      share: 'schule', path: 'Fachschaften/Deutsch/.wiki/lektüre.md', trailingSlash: false,
    });
    assert.deepEqual(parseDavPath('/dav/schule/', SHARES), { share: 'schule', path: '', trailingSlash: true });
    assert.deepEqual(parseDavPath('/dav/schule', SHARES), { share: 'schule', path: '', trailingSlash: false });
    assert.deepEqual(parseDavPath('/dav/schule/Sch%C3%BClerzeitung/', SHARES), { share: 'schule', path: 'Schülerzeitung', trailingSlash: true });
    assert.equal(parseDavPath('/dav/schule/Budget%202026.csv', SHARES)?.path, 'Budget 2026.csv');
    assert.equal(parseDavPath('/dav/schule/100%25.md', SHARES)?.path, '100%.md');
    assert.equal(parseDavPath('/dav/schule/~%24report.docx', SHARES)?.path, '~$report.docx');
  });

  it('answers undefined for a share that is not configured', () => {
    assert.equal(parseDavPath('/dav/privat/x', SHARES), undefined);
  });

  it(`refuses all ${PATH_ATTACKS.length} attack paths`, () => {
    assert.ok(PATH_ATTACKS.length >= 50);
    for (const attack of PATH_ATTACKS) {
      assert.throws(() => parseDavPath(attack, SHARES), DavPathError, attack);
    }
  });

  it('says what is wrong', () => {
    assert.throws(() => parseDavPath('/dav/schule/%2e%2e/x', SHARES), /relative path segment/);
    assert.throws(() => parseDavPath('/dav/schule/a.txt%3a%3a%24DATA', SHARES), /streams/);
    assert.throws(() => parseDavPath('/dav/schule/a%252e', SHARES), /double encoding/);
    assert.throws(() => parseDavPath('/dav/schule/%ef%bc%8e%ef%bc%8e', SHARES), /Unicode compatibility form/);
    assert.throws(() => parseDavPath('/dav/', SHARES), /must name a share/);
  });

  it('builds hrefs with encoded segments and a slash for collections', () => {
    assert.equal(hrefOf('schule', '', true), '/dav/schule/');
    assert.equal(hrefOf('schule', 'Schülerzeitung', true), '/dav/schule/Sch%C3%BClerzeitung/');
    assert.equal(hrefOf('schule', 'a b/#1.md', false), '/dav/schule/a%20b/%231.md');
  });

  it('compares containment case-insensitively', () => {
    assert.ok(isWithin('Lehrerzimmer/Protokolle/x', 'lehrerzimmer'));
    assert.ok(isWithin('a', ''));
    assert.ok(!isWithin('ab', 'a'));
  });
});
