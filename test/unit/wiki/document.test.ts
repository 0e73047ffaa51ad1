import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AceType, type SecurityDescriptor } from '../../../src/windows-security/access-control.js';
import { deriveAcl } from '../../../src/wiki/acl.js';
import { documentId, folderKey } from '../../../src/wiki/document-id.js';
import { buildWikiDocument, markdownToText, type WikiPageSource } from '../../../src/wiki/document.js';
import { versionToken } from '../../../src/wiki/version-token.js';
import { SharePathError } from '../../../src/wiki/layout.js';

const TEACHERS = 'S-1-5-21-1-2-3-1101';
const PUPILS = 'S-1-5-21-1-2-3-1102';

function sdAllowing(...sids: string[]): SecurityDescriptor {
  return {
    revision: 1,
    control: 0x8004,
    owner: null,
    group: null,
    dacl: { revision: 2, aces: sids.map((sid) => ({ type: AceType.ACCESS_ALLOWED, flags: 0, mask: 0x1200a9, sid })) },
    sacl: null,
  };
}

const page = `# Lehrplan Deutsch für die Oberstufe

Die **Schülerinnen und Schüler** lesen [Goethes *Faust*](https://example.org/faust) und üben Erörterungen.

## Prüfungstermine

- Klausur am 3. März
- Mündliche Prüfung: \`Raum 204\`

\`\`\`python
print("Grüße aus dem Code-Block")
\`\`\`

<script>alert("xss")</script>
<div class="box">Rohes <b>HTML</b>-Blockelement</div>

Text mit <span style="color:red">Inline-HTML</span> &amp; Entität &lt;tag&gt;.

![Bild vom Schulhof](hof.png)

### Abschluss & Ausblick
`;

describe('markdownToText', () => {
  const text = markdownToText(page);

  it('takes the first heading as title and lists all headings', () => {
    assert.equal(text.title, 'Lehrplan Deutsch für die Oberstufe');
    assert.deepEqual(text.headings, ['Lehrplan Deutsch für die Oberstufe', 'Prüfungstermine', 'Abschluss & Ausblick']);
  });

  it('keeps the German text with its umlauts, link text, code and image alt text', () => {
    for (const fragment of [
      'Die Schülerinnen und Schüler lesen Goethes Faust und üben Erörterungen.',
      'Klausur am 3. März',
      'Mündliche Prüfung: Raum 204',
      'print("Grüße aus dem Code-Block")',
      'Text mit Inline-HTML & Entität <tag>.',
      'Bild vom Schulhof',
    ]) {
      assert.ok(text.body.includes(fragment), `body lacks '${fragment}':\n${text.body}`);
    }
  });

  it('leaves out markup, link targets and raw HTML', () => {
    for (const fragment of ['**', '](', 'https://example.org', '```', '<script', '<div', '<b>', '<span', 'class=', 'hof.png', '#']) {
      assert.ok(!text.body.includes(fragment), `body contains '${fragment}':\n${text.body}`);
    }
  });

  it('has no title for a page without headings', () => {
    assert.deepEqual(markdownToText('Nur Text.'), { title: null, headings: [], body: 'Nur Text.' });
    assert.deepEqual(markdownToText(''), { title: null, headings: [], body: '' });
  });

  it('keeps one space between words, whatever spacing the page has', () => {
    const spaced = (line: string) => markdownToText(line).body;
    assert.equal(spaced('ein Wort'), 'ein Wort');
    assert.equal(spaced('zwei  Leerzeichen'), 'zwei Leerzeichen');
    assert.equal(spaced('Tab\tdazwischen'), 'Tab dazwischen');
    assert.equal(spaced('geschütztes\u00a0Leerzeichen'), 'geschütztes Leerzeichen');
    assert.equal(spaced('Zeile\numbrochen'), 'Zeile umbrochen');
    assert.equal(spaced('Ende mit Bild ![ Alt  Text ](bild.png)'), 'Ende mit Bild Alt Text');
    assert.equal(spaced('`code  mit  Lücken`'), 'code mit Lücken');
  });
});

describe('buildWikiDocument', () => {
  const source: WikiPageSource = {
    server: 'DC1.edu.test',
    share: 'schule',
    path: 'Fachschaften/Deutsch/.wiki/Lehrplan.md',
    content: new TextEncoder().encode(`\uFEFF${page}`),
    size: 1234,
    modified: new Date('2026-03-01T10:00:00.123Z'),
    acl: deriveAcl(sdAllowing(TEACHERS)),
  };
  const indexedAt = new Date('2026-03-02T00:00:00Z');

  it('fills every field from the page, its place and its ACL', () => {
    const doc = buildWikiDocument(source, indexedAt);
    assert.equal(doc.id, documentId('DC1.edu.test', 'schule', 'Fachschaften/Deutsch/.wiki/Lehrplan.md'));
    assert.match(doc.id, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      { ...doc, body: undefined, headings: undefined, id: undefined, version: undefined },
      {
        id: undefined,
        server: 'DC1.edu.test',
        share: 'schule',
        folder: 'Fachschaften/Deutsch',
        folder_key: 'fachschaften/deutsch',
        folder_ancestors: ['fachschaften', 'fachschaften/deutsch'],
        page: 'Lehrplan',
        path: 'Fachschaften/Deutsch/.wiki/Lehrplan.md',
        is_start_page: false,
        title: 'Lehrplan Deutsch für die Oberstufe',
        headings: undefined,
        body: undefined,
        size: 1234,
        modified: '2026-03-01T10:00:00.123Z',
        version: undefined,
        acl_allow: [TEACHERS],
        acl_deny: [],
        indexed_at: '2026-03-02T00:00:00.000Z',
      },
    );
    assert.ok(doc.body.startsWith('Lehrplan Deutsch'), 'the byte order mark is stripped');
  });

  it('falls back to the file name as title and marks index.md as start page', () => {
    const doc = buildWikiDocument({ ...source, path: '.wiki/index.md', content: 'Kein Titel hier.' });
    assert.equal(doc.title, 'index');
    assert.equal(doc.is_start_page, true);
    assert.equal(doc.folder, '');
    assert.deepEqual(doc.folder_ancestors, []);
  });

  it('refuses a path that is not a wiki page', () => {
    assert.throws(() => buildWikiDocument({ ...source, path: 'Fachschaften/Lehrplan.md' }), SharePathError);
  });

  it('gives the same id however the path is spelled', () => {
    const id = documentId('dc1.edu.test', 'Schule', 'schülerzeitung/.WIKI/index.md');
    assert.equal(documentId('DC1.EDU.TEST', 'schule', '/Schu\u0308lerzeitung\\.wiki\\Index.md'), id);
    assert.notEqual(documentId('dc1.edu.test', 'verwaltung', 'schülerzeitung/.wiki/index.md'), id);
    assert.notEqual(documentId('dc2.edu.test', 'schule', 'schülerzeitung/.wiki/index.md'), id);
    assert.equal(folderKey('Schu\u0308lerzeitung/'), 'schülerzeitung');
  });

  it('changes the version token with size, modification time or ACL, and only then', () => {
    const aclAllowing = (...sids: string[]) => deriveAcl(sdAllowing(...sids));
    const base = versionToken(10, new Date(1000), aclAllowing(TEACHERS, PUPILS));
    assert.equal(versionToken(10, new Date(1000), aclAllowing(PUPILS, TEACHERS)), base);
    assert.notEqual(versionToken(11, new Date(1000), aclAllowing(TEACHERS, PUPILS)), base);
    assert.notEqual(versionToken(10, new Date(1001), aclAllowing(TEACHERS, PUPILS)), base);
    assert.notEqual(versionToken(10, new Date(1000), aclAllowing(TEACHERS)), base);
  });
});
