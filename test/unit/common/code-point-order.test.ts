import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareCodePoints } from '../../../src/common/code-point-order.js';

/** The order Elasticsearch uses for keywords: the UTF-8 bytes. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('compareCodePoints', () => {
  it('orders like the UTF-8 bytes, also where UTF-16 code units disagree', () => {
    // U+FF0E (fullwidth full stop) is one code unit above the surrogates of U+1F600, but below it as a code point.
    assert.ok('\uff0e' > '\u{1f600}', 'UTF-16 order puts the fullwidth stop last');
    assert.ok(compareCodePoints('\uff0e', '\u{1f600}') < 0);
    const words = ['b', 'B', 'a-b', 'a/b', 'a', 'ä', 'z', '\u{1f600}x', '\uff0e', '\ue000', '\ud7ff', 'Ü', '.wiki', '', 'a b'];
    assert.deepEqual([...words].sort(compareCodePoints), [...words].sort(byUtf8));
  });

  it('agrees with the UTF-8 order on random strings', () => {
    const alphabet = ['a', 'A', '/', '-', '.', 'ß', 'é', '\u{10000}', '\u{1f4a9}', '\uffff', '\ue000', '\ud7fb', '0', ' '];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const strings = Array.from({ length: 400 }, () => Array.from({ length: random(6) }, () => alphabet[random(alphabet.length)]).join(''));
    assert.deepEqual([...strings].sort(compareCodePoints), [...strings].sort(byUtf8));
    for (const s of strings) assert.equal(compareCodePoints(s, s), 0);
  });
});
