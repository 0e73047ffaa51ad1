// Pieces of malformed and hostile input, drawn from a seeded generator so that
// a failing run can be repeated with its seed: strings, JSON values and bodies,
// header values, content types, Basic credentials.
import { seededRandom } from '../../integration/search/seeded-random.js';
import type { HeaderValue } from './raw-http.js';

export class Dice {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** One of the makers, called: for choosing among kinds of input. */
  oneOf<T>(makers: ReadonlyArray<() => T>): T {
    return this.pick(makers)();
  }

  bytes(n: number): Buffer {
    return Buffer.from(Array.from({ length: n }, () => this.int(256)));
  }
}

/** Characters and fragments that break parsers, paths, encodings and queries. */
const NASTY = [
  '', ' ', '\t', '\u0000', '\u0007', '\u001b[31m', '\r', '\n', '\r\n', '%', '%0', '%zz', '%00', '%2e%2e', '%2f', '%5c', '%c0%af',
  '%ff', '%e4', '..', '../', '..\\', '/', '\\', ':', '*', '?', '"', '<', '>', '|', '$', '{}', '[]', 'null', 'true', '-1', '1e309',
  '0x7fffffff', "'", '`', ';', ',', '&', '=', '#', '~', 'ä', 'ß', '中文', '\u202e', '\u200b', '\ufeff', '\ufffd', '😀', '\ud800',
  '\udfff', 'CON', 'NUL', 'AUX', 'COM1', 'a:stream', 'a::$DATA', '.', 'x.', 'x ', ' x', '${jndi:ldap://x}', '<script>', "' OR 1=1 --",
  '*)(uid=*', '\\2a', 'Ā'.repeat(3), 'e\u0301',
];

/** A short hostile string: a few nasty fragments and letters glued together. */
export function nastyString(d: Dice, maxParts = 6): string {
  let s = '';
  const parts = 1 + d.int(maxParts);
  for (let i = 0; i < parts; i++) s += d.chance(0.6) ? d.pick(NASTY) : d.pick(['a', 'Z', '0', 'Lehrer', 'wiki', 'page.md', 'x'.repeat(d.int(40))]);
  return s;
}

/** Strings of every size class, up to `max` characters (far over every limit when max allows it). */
export function hostileString(d: Dice, max = 70_000): string {
  return d.oneOf([
    () => nastyString(d),
    () => nastyString(d),
    () => d.pick(['a', 'é', '😀', '%', '\u0000', '.']).repeat(1 + d.int(Math.min(max, 300))),
    () => 'x'.repeat(Math.min(max, d.pick([255, 256, 257, 1024, 4096, 65_536, 70_000]))),
  ]);
}

/** Any JSON value, hostile in type, size and depth. */
export function hostileJson(d: Dice, depth = 0): unknown {
  const leaf = () => d.oneOf<unknown>([
    () => null, () => d.chance(0.5), () => d.pick([0, -0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MIN_VALUE]),
    () => hostileString(d, 2_000), () => nastyString(d),
  ]);
  if (depth > 3) return leaf();
  return d.oneOf<unknown>([
    leaf, leaf,
    () => Array.from({ length: d.int(5) }, () => hostileJson(d, depth + 1)),
    () => Object.fromEntries(Array.from({ length: d.int(5) }, () => [d.chance(0.3) ? d.pick(['__proto__', 'constructor', 'prototype', '']) : nastyString(d, 2), hostileJson(d, depth + 1)])),
  ]);
}

/** JSON text nested `depth` levels deep (arrays or objects). */
export function deeplyNested(d: Dice, depth: number): string {
  return d.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A request body that is not the JSON object an endpoint wants, or is one with hostile contents (`valid` objects mixed in). */
export function hostileBody(d: Dice, valid: () => Record<string, unknown>): Buffer {
  return d.oneOf<Buffer>([
    () => Buffer.from(JSON.stringify(hostileJson(d))),
    () => Buffer.from(JSON.stringify({ ...valid(), [nastyString(d, 2)]: hostileJson(d) })),
    () => Buffer.from(JSON.stringify(Object.fromEntries(Object.keys(valid()).map((k) => [k, hostileJson(d)])))),
    () => Buffer.from(JSON.stringify(valid()).slice(0, d.int(JSON.stringify(valid()).length))),
    () => Buffer.concat([Buffer.from('{"a":"'), d.pick([Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), d.bytes(8)]), Buffer.from('"}')]),
    () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(valid()))]),
    () => Buffer.from(JSON.stringify(valid()), d.pick(['utf16le', 'latin1'] as const)),
    () => Buffer.from(deeplyNested(d, d.pick([64, 1_000, 100_000]))),
    () => Buffer.from(d.pick(['', ' ', 'null', '[]', '""', '0', 'true', '{', '}', '{"a":1,}', "{'a':1}", '{"a":01}', '{"a":NaN}', '<?xml version="1.0"?><a/>', 'a=1&b=2', '\u0000'])),
    () => d.bytes(d.int(2_000)),
    () => Buffer.from(`{"a":"${'x'.repeat(d.pick([10_000, 17_000, 300_000, 1_100_000]))}"}`),
  ]);
}

export function hostileContentType(d: Dice): string | undefined {
  return d.pick([
    undefined, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=utf-16', 'application/json;;;',
    'application/jsonx', 'text/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml',
    'text/xml; charset=latin1', '', ' ', '*/*', 'application/*', 'json', 'application/json, text/plain', 'application/merge-patch+json',
  ]);
}

/** A header value that is malformed in form, encoding or size (raw bytes allowed). */
export function hostileHeaderValue(d: Dice): HeaderValue {
  return d.oneOf<HeaderValue>([
    () => nastyString(d).replace(/[\r\n]/g, ''),
    () => Buffer.from(nastyString(d).replace(/[\r\n]/g, ''), 'utf8'),
    () => Buffer.concat([Buffer.from('a'), d.bytes(4).map((b) => (b === 10 || b === 13 ? 32 : b)), Buffer.from('z')]),
    () => 'x'.repeat(d.pick([100, 1_000, 8_000, 20_000])),
    () => d.pick(['', ' ', '\t', 'a\u0000b', 'a\tb', '  padded  ']),
  ]);
}

/** Basic credentials that must not log anyone in, and malformed Authorization values. Never a wrong password of a real account (lockout). */
export function hostileAuthorization(d: Dice): HeaderValue | undefined {
  const basic = (s: string | Buffer) => `Basic ${Buffer.from(s).toString('base64')}`;
  return d.oneOf<HeaderValue | undefined>([
    () => undefined,
    () => basic(`nobody-${d.int(1e6)}:${nastyString(d)}`),
    () => basic(`${nastyString(d).replace(/:/g, '')}:x`),
    () => basic(Buffer.concat([Buffer.from('abuse-'), d.bytes(6).map((b) => (b === 58 ? 59 : b)), Buffer.from(':pw')])),
    () => basic('no-colon-at-all'),
    () => basic(':'),
    () => `Basic ${nastyString(d)}`,
    () => `Basic ${'QUFB'.repeat(d.pick([1, 3_000]))}`,
    () => d.pick(['Basic', 'Basic ', 'basic Zm9vOmJhcg==', 'Bearer abc.def.ghi', 'Digest username="x"', 'Negotiate YII=', 'Basic Zm9v', 'Basic =====']),
    () => hostileHeaderValue(d),
  ]);
}

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (lone surrogates become U+FFFD, where encodeURIComponent throws). */
export function percentEncoded(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('');
}
