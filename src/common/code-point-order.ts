/**
 * The order Elasticsearch sorts `keyword` fields in: by the UTF-8 bytes, which is Unicode code point order.
 * JavaScript's `<` compares UTF-16 code units and disagrees for characters above U+FFFF against U+E000–U+FFFF,
 * so the reconciler's walk and merge compare with this instead.
 */

/** UTF-16 code unit mapped so that unit order equals code point order: surrogates go above U+FFFF's units. */
function rank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in code point order. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}
