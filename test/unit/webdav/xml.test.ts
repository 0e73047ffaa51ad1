import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAV_NS, XmlError, dav, element, parseXml, serializeXml, textOf } from '../../../src/webdav/xml.js';

describe('namespace-aware XML', () => {
  it('resolves default and prefixed namespaces, the empty namespace and xml:', () => {
    const root = parseXml(Buffer.from(
      '<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns="urn:x"><D:set><D:prop>'
      + '<a xml:lang="de">1</a><b xmlns="">2</b><t:c xmlns:t="urn:t" t:k="v"/></D:prop></D:set></D:propertyupdate>'));
    assert.equal(root.ns, DAV_NS);
    const prop = (root.children[0] as typeof root).children[0] as typeof root;
    const [a, b, c] = prop.children as (typeof root)[];
    assert.deepEqual([a!.ns, a!.name, a!.attrs], ['urn:x', 'a', [{ ns: 'http://www.w3.org/XML/1998/namespace', name: 'lang', value: 'de' }]]);
    assert.deepEqual([b!.ns, b!.name, textOf(b!)], ['', 'b', '2']);
    assert.deepEqual([c!.ns, c!.attrs], ['urn:t', [{ ns: 'urn:t', name: 'k', value: 'v' }]]);
  });

  it('decodes entities and character references once, including characters above U+FFFF', () => {
    const root = parseXml('<a>&#65536;&amp;#65;&lt;&#x41;<![CDATA[&amp;]]></a>');
    assert.equal(textOf(root), '\u{10000}&#65;<A&amp;');
  });

  it('refuses what is not well-formed or not namespace-valid', () => {
    const bad = [
      '<foo>', '<a></b>', '<a>x</a><b/>', '<a/>junk', '',
      '<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>',
      '<x:a/>', '<a>&nbsp;</a>', '<a>&#0;</a>', '<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>',
      '<?xml version="1.0" encoding="ISO-8859-1"?><a/>',
    ];
    for (const text of bad) assert.throws(() => parseXml(text), XmlError, text);
    assert.throws(() => parseXml(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e])), /UTF-8/);
  });

  it('serializes with prefixes declared on the root and reads back the same tree', () => {
    const tree = dav('multistatus', [
      dav('response', [dav('href', ['/dav/a&b<c>']), element('urn:x', 'p', ['v'], [{ ns: '', name: 'q', value: '"' }]), element('', 'plain', ['n'])]),
    ]);
    const text = serializeXml(tree);
    assert.match(text, /^<\?xml version="1.0" encoding="utf-8"\?>\n<D:multistatus xmlns:D="DAV:" xmlns:ns0="urn:x">/);
    assert.deepEqual(parseXml(text), tree);
  });

  it('replaces characters XML cannot carry', () => {
    assert.match(serializeXml(dav('displayname', ['a\u0001b'])), /a\ufffdb/);
  });
});
