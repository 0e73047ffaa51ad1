import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageDeleted, pageMoved, pageWritten } from '../../../src/webdav/wiki-hook.js';

const page = (path: string) => ({ server: 'fs1', share: 'schule', path });

describe('post-write hook messages', () => {
  it('one per wiki page written, deleted or moved; nothing for other files', () => {
    assert.deepEqual(pageWritten('fs1', 'schule', 'Fachschaften/.wiki/plan.md'), [{ type: 'page-written', page: page('Fachschaften/.wiki/plan.md') }]);
    assert.deepEqual(pageWritten('fs1', 'schule', 'Fachschaften/plan.md'), []);
    assert.deepEqual(pageWritten('fs1', 'schule', '.wiki/bild.png'), []);
    assert.deepEqual(pageDeleted('fs1', 'schule', '.WIKI/Index.MD'), [{ type: 'page-deleted', page: page('.WIKI/Index.MD') }]);
  });

  it('a move into, out of or within the wiki layout', () => {
    assert.deepEqual(pageMoved('fs1', 'schule', '.wiki/a.md', 'x/.wiki/a.md'), [{ type: 'page-moved', from: page('.wiki/a.md'), to: page('x/.wiki/a.md') }]);
    assert.deepEqual(pageMoved('fs1', 'schule', '.wiki/a.md', 'archiv/a.md'), [{ type: 'page-deleted', page: page('.wiki/a.md') }]);
    assert.deepEqual(pageMoved('fs1', 'schule', 'entwurf.md', '.wiki/entwurf.md'), [{ type: 'page-written', page: page('.wiki/entwurf.md') }]);
    assert.deepEqual(pageMoved('fs1', 'schule', 'a.txt', 'b.txt'), []);
  });
});
