import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  folderAncestry,
  isWikiDir,
  isWikiPage,
  normalizeSharePath,
  SharePathError,
  wikiPageLocation,
  wikiWriteViolation,
} from '../../../src/wiki/layout.js';

describe('wiki layout', () => {
  it('recognises share-level pages and their start page', () => {
    assert.deepEqual(wikiPageLocation('.wiki/index.md'), { path: '.wiki/index.md', folder: '', page: 'index', isStartPage: true });
    assert.deepEqual(wikiPageLocation('/.wiki/Regeln.md'), { path: '.wiki/Regeln.md', folder: '', page: 'Regeln', isStartPage: false });
  });

  it('recognises pages of a regular folder, with backslashes and any letter case', () => {
    assert.deepEqual(wikiPageLocation('Fachschaften\\Deutsch\\.WIKI\\Lehrplan Übersicht.MD'), {
      path: 'Fachschaften/Deutsch/.WIKI/Lehrplan Übersicht.MD',
      folder: 'Fachschaften/Deutsch',
      page: 'Lehrplan Übersicht',
      isStartPage: false,
    });
    assert.equal(wikiPageLocation('Schülerzeitung/.wiki/Index.md')?.isStartPage, true);
  });

  it('rejects everything that is not a *.md directly inside one .wiki folder', () => {
    for (const path of [
      'index.md',
      'Fachschaften/index.md',
      '.wiki',
      '.wiki/bild.png',
      '.wiki/notes.md.bak',
      '.wiki/.md',
      '.wiki/sub/page.md',
      '.wiki/.wiki/page.md',
      'a/.wiki/b/.wiki/page.md',
      '',
    ]) {
      assert.equal(isWikiPage(path), false, path);
    }
  });

  it('refuses . and .. segments instead of resolving them', () => {
    assert.throws(() => wikiPageLocation('a/../.wiki/x.md'), SharePathError);
    assert.throws(() => normalizeSharePath('./a'), SharePathError);
  });

  it('names .wiki folders and normalizes paths', () => {
    assert.equal(isWikiDir('Lehrerzimmer/.wiki/'), true);
    assert.equal(isWikiDir('.wiki'), true);
    assert.equal(isWikiDir('.wiki/.wiki'), false);
    assert.equal(isWikiDir('Lehrerzimmer'), false);
    assert.equal(normalizeSharePath('//a//b/'), 'a/b');
  });

  it('lists a folder with its ancestors', () => {
    assert.deepEqual(folderAncestry(''), []);
    assert.deepEqual(folderAncestry('Fachschaften/Deutsch/Oberstufe'), [
      'Fachschaften',
      'Fachschaften/Deutsch',
      'Fachschaften/Deutsch/Oberstufe',
    ]);
  });

  describe('write validation for WebDAV', () => {
    it('allows anything outside .wiki and *.md inside it', () => {
      assert.equal(wikiWriteViolation('Fachschaften/bild.png', 'file'), null);
      assert.equal(wikiWriteViolation('Fachschaften/Neu', 'folder'), null);
      assert.equal(wikiWriteViolation('Fachschaften/.wiki', 'folder'), null);
      assert.equal(wikiWriteViolation('Fachschaften/.wiki/Neue Seite.md', 'file'), null);
    });

    it('refuses other files and any folder inside .wiki', () => {
      assert.equal(wikiWriteViolation('.wiki/bild.png', 'file')?.code, 'wiki_non_markdown');
      assert.equal(wikiWriteViolation('.wiki/Unterordner', 'folder')?.code, 'wiki_subfolder');
      assert.equal(wikiWriteViolation('.wiki/.wiki', 'folder')?.code, 'wiki_subfolder');
      assert.equal(wikiWriteViolation('.wiki/sub/page.md', 'file')?.code, 'wiki_subfolder');
      assert.match(wikiWriteViolation('a/.wiki/x.txt', 'file')!.message, /only Markdown files/);
    });
  });
});
