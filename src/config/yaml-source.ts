// Reads YAML while keeping the source positions, so that every issue can name a line.
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigIssue } from './errors.js';

export interface YamlSource {
  /** The document as plain data; keys written without a value (`key:`) are left out, as if not written. */
  data: unknown;
  /** Line of the value at `path`, or, when it is missing, of the closest mapping or list item that exists. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

type YamlParseResult = { ok: true; source: YamlSource } | { ok: false; issues: ConfigIssue[] };

export function parseYamlSource(text: string): YamlParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => ({
        line: error.linePos?.[0].line,
        path: '',
        message: `invalid YAML: ${shortYamlMessage(error.message)}`,
      })),
    };
  }
  const startLine = (node: Node | null | undefined): number | undefined =>
    node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
  let data: unknown;
  try {
    data = withoutEmptyValues(doc.toJS({ maxAliasCount: 100 }));
  } catch (error) {
    // Unresolvable or exploding aliases are only detected while converting.
    return { ok: false, issues: [{ line: undefined, path: '', message: `invalid YAML: ${shortYamlMessage(String((error as Error).message))}` }] };
  }
  return { ok: true, source: { data, lineOf: (path) => locate(doc, path, startLine) } };
}

function locate(
  doc: Document,
  path: readonly PropertyKey[],
  startLine: (node: Node | null | undefined) => number | undefined,
): number | undefined {
  let node: unknown = doc.contents;
  let line = startLine(doc.contents);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (pair === undefined) return line;
      line = startLine(pair.key as Node) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as Node | undefined;
      if (item === undefined) return line;
      line = startLine(item) ?? line;
      node = item;
    } else {
      return line;
    }
  }
  return line;
}

function keyText(key: unknown): string | undefined {
  if (key !== null && typeof key === 'object' && 'value' in key) return String(key.value);
  return undefined;
}

/** yaml's messages end in " at line N, column M:" plus a source excerpt; the line is reported separately. */
function shortYamlMessage(message: string): string {
  const firstLine = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return firstLine.charAt(0).toLowerCase() + firstLine.slice(1);
}

function withoutEmptyValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyValues);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, entry]) => entry !== null)
        .map(([key, entry]) => [key, withoutEmptyValues(entry)]),
    );
  }
  return value;
}
