// Highlighted snippets are safe HTML: the page text is escaped, only <mark> tags are markup.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { parseSearchRequest, type Viewer } from '../../../src/search/query.js';
import { WikiSearch } from '../../../src/search/search.js';
import { buildWikiDocument } from '../../../src/wiki/document.js';
import { NO_DACL, indexDocuments, scratchIndex, type ScratchIndex } from './scratch-index.js';

const viewer: Viewer = { allowSids: ['S-1-1-0'], denySids: ['S-1-1-0'], shares: ['schule'] };

const pages: Record<string, string> = {
  'Sicherheit.md': [
    '# Sicherheit',
    '',
    'Beispiel für einen Angriff: `<img src=x onerror=alert(1)>` im Text und &lt;script&gt;Skriptwort&lt;/script&gt;.',
    '',
    '<div onclick="evil()">Blockwort im rohen HTML</div>',
    '',
    'Zeichen wie "Anführungszeichen" & \'Apostrophe\' bleiben Text.',
  ].join('\n'),
  // No heading: the title is the file name, which the body does not contain.
  'Elternbrief.md': 'Der Text beginnt mit `<b>` und <b>fett</b> & einem Kaufmanns-Und.\n',
};

/** What a snippet may contain as markup: nothing but <mark> and </mark>. */
function assertSafe(snippet: string): void {
  const withoutMarks = snippet.replaceAll('<mark>', '').replaceAll('</mark>', '');
  assert.doesNotMatch(withoutMarks, /[<>]/, `markup left in snippet: ${snippet}`);
  assert.doesNotMatch(withoutMarks, /&(?!(amp|lt|gt|quot|#x27|#x2F);)/, `unescaped & in snippet: ${snippet}`);
}

describe('search snippets', () => {
  let es: ScratchIndex;
  let search: WikiSearch;
  before(async () => {
    es = await scratchIndex('snippets');
    await new IndexManager({ client: es.client, alias: es.alias }).ensureIndex();
    const docs = Object.entries(pages).map(([name, content]) =>
      buildWikiDocument({
        server: 'dc1',
        share: 'schule',
        path: `.wiki/${name}`,
        content,
        size: content.length,
        modified: new Date(),
        acl: NO_DACL,
      }),
    );
    assert.equal((await indexDocuments(es, docs)).upserted, 2);
    search = new WikiSearch({ client: es.client, alias: es.alias });
  });
  after(() => es.drop());

  async function snippetFor(q: string): Promise<string> {
    const result = await search.search(parseSearchRequest({ q }), viewer);
    assert.equal(result.total, 1, `hits for '${q}'`);
    return result.hits[0]!.snippet;
  }

  it('escapes HTML from code spans and entities around the highlighted word', async () => {
    const snippet = await snippetFor('onerror');
    assert.match(snippet, /&lt;img src=x <mark>onerror<\/mark>=alert\(1\)&gt;/);
    assertSafe(snippet);
    const script = await snippetFor('Skriptwort');
    assert.match(script, /&lt;script&gt;<mark>Skriptwort<\/mark>&lt;&#x2F;script&gt;/);
    assertSafe(script);
  });

  it('escapes quotes and ampersands', async () => {
    const snippet = await snippetFor('Apostrophe');
    assert.match(snippet, /&amp;/);
    assertSafe(snippet);
  });

  it('never indexes a raw HTML block', async () => {
    const result = await search.search(parseSearchRequest({ q: 'Blockwort' }), viewer);
    assert.equal(result.total, 0);
  });

  it('escapes the opening text shown when only the title matched', async () => {
    const snippet = await snippetFor('Elternbrief');
    assert.equal(snippet, 'Der Text beginnt mit &lt;b&gt; und fett &amp; einem Kaufmanns-Und.');
    assertSafe(snippet);
  });
});
