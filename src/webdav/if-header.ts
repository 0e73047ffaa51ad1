// The WebDAV If header (RFC 4918 §10.4): lists of state tokens and entity
// tags, optionally tagged with the resource they are about. It does two jobs:
// a precondition (false → 412) and the way a client submits its lock tokens.

export class IfHeaderError extends Error {
  override readonly name = 'IfHeaderError';
}

interface IfCondition {
  not: boolean;
  kind: 'token' | 'etag';
  /** The state token (without angle brackets) or the entity tag (with its quotes). */
  value: string;
}

export interface IfList {
  /** The tagged resource as written (an absolute URI or path); undefined means the request URI. */
  resource: string | undefined;
  conditions: IfCondition[];
}

/** What the evaluation needs to know about one resource. */
export interface IfResourceState {
  /** Current entity tag; null when the resource does not exist or has none. */
  etag: string | null;
  /** Tokens of the locks that cover the resource. */
  lockTokens: ReadonlySet<string>;
}

export function parseIfHeader(header: string): IfList[] {
  const lists: IfList[] = [];
  let i = 0;
  let resource: string | undefined;
  let tagged: boolean | undefined;
  const fail = (why: string): never => { throw new IfHeaderError(`If header: ${why} at position ${i}`); };
  const skipSpace = () => { while (i < header.length && /\s/.test(header[i]!)) i++; };
  const until = (close: string): string => {
    const end = header.indexOf(close, i + 1);
    if (end < 0) fail(`missing '${close}'`);
    const value = header.slice(i + 1, end);
    i = end + 1;
    return value;
  };
  for (skipSpace(); i < header.length; skipSpace()) {
    if (header[i] === '<') {
      if (tagged === false) fail('a resource tag after untagged lists');
      tagged = true;
      resource = until('>');
      skipSpace();
      if (header[i] !== '(') fail('a resource tag must be followed by a list');
      continue;
    }
    if (header[i] !== '(') fail(`unexpected '${header[i]}'`);
    if (tagged === undefined) tagged = false;
    i++;
    const conditions: IfCondition[] = [];
    for (skipSpace(); header[i] !== ')'; skipSpace()) {
      if (i >= header.length) fail("missing ')'");
      let not = false;
      if (header.slice(i, i + 3).toLowerCase() === 'not' && /[\s<[]/.test(header[i + 3] ?? '')) {
        not = true;
        i += 3;
        skipSpace();
      }
      if (header[i] === '<') conditions.push({ not, kind: 'token', value: until('>') });
      else if (header[i] === '[') conditions.push({ not, kind: 'etag', value: until(']').trim() });
      else fail('expected a state token <...> or an entity tag [...]');
    }
    i++;
    if (conditions.length === 0) fail('empty list');
    lists.push({ resource, conditions });
  }
  if (lists.length === 0) throw new IfHeaderError('If header: no lists');
  return lists;
}

/** The resources the lists talk about: the tagged ones, and undefined for the request URI. */
export function ifResources(lists: readonly IfList[]): (string | undefined)[] {
  return [...new Set(lists.map((l) => l.resource))];
}

/** Lock tokens the request submits: every token the header names positively. */
export function submittedTokens(lists: readonly IfList[]): string[] {
  return [...new Set(lists.flatMap((l) => l.conditions.filter((c) => c.kind === 'token' && !c.not).map((c) => c.value)))];
}

/** True when at least one list holds for its resource. */
export function evaluateIf(lists: readonly IfList[], stateOf: (resource: string | undefined) => IfResourceState): boolean {
  return lists.some((list) => {
    const state = stateOf(list.resource);
    return list.conditions.every((c) => {
      const holds = c.kind === 'token' ? state.lockTokens.has(c.value) : state.etag !== null && sameTag(c.value, state.etag);
      return holds !== c.not;
    });
  });
}

function sameTag(a: string, b: string): boolean {
  return a.replace(/^W\//, '') === b.replace(/^W\//, '');
}
