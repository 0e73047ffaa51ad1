// Single byte ranges (RFC 9110 §14): enough for resuming downloads and for
// viewers that page through large files. Several ranges are answered with
// the whole representation, which the RFC allows.
import { httpDate } from './preconditions.js';
import { parseEtagList, strongMatch } from './etag.js';

interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * The range to serve of a representation of `size` bytes: a ByteRange,
 * 'unsatisfiable' (answer 416), or undefined (serve all of it).
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined; // another unit, several ranges or garbage: ignore it
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return undefined; // invalid range-spec: ignore
  return { start, end };
}

/** If-Range: the range applies only while the representation is the one the client has. */
export function ifRangeHolds(header: string | undefined, etag: string, mtimeMs: number): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    try {
      const tags = parseEtagList(value);
      return tags !== '*' && tags.length === 1 && strongMatch(tags[0]!, etag);
    } catch {
      return false;
    }
  }
  const date = httpDate(value);
  return date !== undefined && Math.floor(mtimeMs / 1000) * 1000 === date;
}
