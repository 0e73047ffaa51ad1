// Namespace-aware XML for WebDAV bodies, on top of fast-xml-parser (which
// knows nothing of namespaces): parse into a tree of elements named by
// namespace URI + local name, and serialize such trees back with prefixes of
// our choosing. Dead properties and lock owners are kept in this form, so
// the tree is plain data that survives structured clone and JSON.
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

export const DAV_NS = 'DAV:';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

interface XmlAttribute {
  ns: string;
  name: string;
  value: string;
}

export interface XmlElement {
  /** Namespace URI; '' for no namespace. */
  ns: string;
  name: string;
  attrs: XmlAttribute[];
  children: XmlNode[];
}

type XmlNode = XmlElement | string;

/** A request body that is not well-formed, namespace-valid XML. */
export class XmlError extends Error {
  override readonly name = 'XmlError';
}

export function element(ns: string, name: string, children: XmlNode[] = [], attrs: XmlAttribute[] = []): XmlElement {
  return { ns, name, attrs, children };
}

/** An element in the DAV: namespace. */
export function dav(name: string, children: XmlNode[] = []): XmlElement {
  return element(DAV_NS, name, children);
}

function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== 'string';
}

/** Child elements, skipping text (whitespace between elements). */
export function childElements(el: XmlElement): XmlElement[] {
  return el.children.filter(isElement);
}

export function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

export function is(el: XmlElement, ns: string, name: string): boolean {
  return el.ns === ns && el.name === name;
}

/** Bytes an element takes where the service keeps it (its JSON): what the size limits of locks and dead properties count. */
export function storedSize(el: XmlElement): number {
  return Buffer.byteLength(JSON.stringify(el));
}

/** `{ns}name`: the key of a property name. */
export function clarkName(ns: string, name: string): string {
  return `{${ns}}${name}`;
}

// ---- parsing ----

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded here, strictly: fast-xml-parser would also decode
  // HTML names and leaves numeric references alone.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
});

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a request body into its root element; throws XmlError naming the problem. */
export function parseXml(body: Buffer | string): XmlElement {
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body);
  } catch {
    throw new XmlError('the XML body is not valid UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const declared = /^<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared !== undefined && !/^(utf-8|us-ascii)$/i.test(declared)) {
    throw new XmlError(`the XML body declares encoding ${declared}; only UTF-8 is accepted`);
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlError('document type declarations are not accepted in XML bodies');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlError(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  // The parser drops text outside the root element; the outline (no comments or processing instructions) shows it.
  const outline = text.replace(/<!--[\s\S]*?-->/g, '').replace(/<\?[\s\S]*?\?>/g, '').trim();
  if (!outline.startsWith('<') || !outline.endsWith('>')) throw new XmlError('text outside the root element');
  const top = parser.parse(text) as OrderedNode[];
  const roots: XmlElement[] = [];
  for (const node of top) {
    const converted = convert(node, new Map([['xml', XML_NS]]));
    if (typeof converted === 'string') {
      if (converted.trim() !== '') throw new XmlError('text outside the root element');
    } else {
      roots.push(converted);
    }
  }
  if (roots.length !== 1) throw new XmlError(`an XML body needs exactly one root element, found ${roots.length}`);
  return roots[0]!;
}

function convert(node: OrderedNode, inherited: ReadonlyMap<string, string>): XmlNode {
  const key = Object.keys(node).find((k) => k !== ':@')!;
  const content = node[key] as OrderedNode[] | string;
  if (key === '#text') return decodeEntities(String(content));
  if (key === '#cdata') return (content as OrderedNode[]).map((c) => String(c['#text'] ?? '')).join('');

  const scope = new Map(inherited);
  const rawAttrs = Object.entries(node[':@'] ?? {});
  for (const [name, raw] of rawAttrs) {
    const value = decodeEntities(raw);
    if (name === 'xmlns') {
      scope.set('', value);
    } else if (name.startsWith('xmlns:')) {
      const prefix = name.slice(6);
      if (value === '') throw new XmlError(`namespace prefix '${prefix}' is declared with an empty namespace name`);
      if (prefix === 'xmlns' || (prefix === 'xml') !== (value === XML_NS) || value === XMLNS_NS) {
        throw new XmlError(`namespace prefix '${prefix}' cannot be bound to '${value}'`);
      }
      scope.set(prefix, value);
    }
  }
  const attrs: XmlAttribute[] = [];
  for (const [name, raw] of rawAttrs) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    const { prefix, local } = splitQName(name);
    attrs.push({ ns: prefix === '' ? '' : resolve(scope, prefix, name), name: local, value: decodeEntities(raw) });
  }
  const { prefix, local } = splitQName(key);
  const children: XmlNode[] = [];
  for (const child of content as OrderedNode[]) {
    const c = convert(child, scope);
    const last = children[children.length - 1];
    if (typeof c === 'string' && typeof last === 'string') children[children.length - 1] = last + c;
    else children.push(c);
  }
  return { ns: prefix === '' ? scope.get('') ?? '' : resolve(scope, prefix, key), name: local, attrs, children };
}

function splitQName(qname: string): { prefix: string; local: string } {
  const colon = qname.indexOf(':');
  if (colon < 0) return { prefix: '', local: qname };
  const local = qname.slice(colon + 1);
  if (colon === 0 || local === '' || local.includes(':')) throw new XmlError(`'${qname}' is not a valid qualified name`);
  return { prefix: qname.slice(0, colon), local };
}

function resolve(scope: ReadonlyMap<string, string>, prefix: string, qname: string): string {
  const uri = scope.get(prefix);
  if (uri === undefined) throw new XmlError(`namespace prefix '${prefix}' of '${qname}' is not declared`);
  return uri;
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlError(`'&' must start an entity reference (at '${whole}')`);
    const named = NAMED_ENTITIES[ref];
    if (named !== undefined) return named;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(ref);
    if (!numeric) throw new XmlError(`unknown entity '&${ref};'`);
    const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : parseInt(numeric[2]!, 10);
    if (!isXmlChar(code)) throw new XmlError(`character reference '&${ref};' is not an XML character`);
    return String.fromCodePoint(code);
  });
}

function isXmlChar(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff)
    || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}

// ---- serialization ----

const builder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  processEntities: true,
  format: false,
});

/** Characters XML 1.0 cannot carry at all, even escaped (file names may hold them). */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The document for `root`, with an XML declaration. Every namespace in the
 * tree is declared once on the root: DAV: as `D`, the others as `ns0`, `ns1`,
 * ...; elements without a namespace stay unprefixed (no default namespace is
 * ever declared, so they mean "no namespace").
 */
export function serializeXml(root: XmlElement): string {
  const prefixes = new Map<string, string>();
  let others = 0;
  collectNamespaces(root, (ns) => {
    if (ns === '' || ns === XML_NS || prefixes.has(ns)) return;
    prefixes.set(ns, ns === DAV_NS ? 'D' : `ns${others++}`);
  });
  const qname = (ns: string, name: string) => {
    if (ns === '') return name;
    return `${ns === XML_NS ? 'xml' : prefixes.get(ns)}:${name}`;
  };
  const toOrdered = (el: XmlElement): OrderedNode => {
    const node: OrderedNode = {
      [qname(el.ns, el.name)]: el.children.map((c) => (typeof c === 'string' ? { '#text': c.replace(NOT_XML, '\ufffd') } : toOrdered(c))),
    };
    if (el.attrs.length > 0) {
      node[':@'] = Object.fromEntries(el.attrs.map((a) => [`@_${qname(a.ns, a.name)}`, a.value.replace(NOT_XML, '\ufffd')]));
    }
    return node;
  };
  const top = toOrdered(root);
  top[':@'] = { ...Object.fromEntries([...prefixes].map(([ns, p]) => [`@_xmlns:${p}`, ns])), ...top[':@'] };
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build([top]) as string}`;
}

function collectNamespaces(el: XmlElement, declare: (ns: string) => void): void {
  declare(el.ns);
  for (const a of el.attrs) declare(a.ns);
  for (const c of el.children) if (typeof c !== 'string') collectNamespaces(c, declare);
}
