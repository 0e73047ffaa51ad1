import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isActiveContent } from '../../../src/webdav/active-content.js';
import { contentTypeOf } from '../../../src/webdav/mime.js';

describe('contentTypeOf', () => {
  it('types a file by its last extension, case-insensitively', () => {
    assert.equal(contentTypeOf('Notes.MD'), 'text/markdown; charset=utf-8');
    assert.equal(contentTypeOf('archive.tar.zip'), 'application/zip');
    assert.equal(contentTypeOf('no-extension'), 'application/octet-stream');
    assert.equal(contentTypeOf('unknown.qqq'), 'application/octet-stream');
  });

  it('types a name that is only an extension by it, so that an active one is still sent as a download', () => {
    // The abuse suite's seed 1659319237 made a file named ".xhtml": it was served inline as octet-stream.
    for (const name of ['.xhtml', '.svg', '.html', '.xml']) assert.ok(isActiveContent(contentTypeOf(name)), name);
  });
});
