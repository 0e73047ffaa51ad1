// Entity tags (RFC 9110 §8.8.3): ours are strong and derived from what SMB
// reports for a file, so every read path (open, stat, directory listing,
// the close after a write) yields the same tag for the same file version.

export class EtagSyntaxError extends Error {
  override readonly name = 'EtagSyntaxError';
}

/** `"<file id>-<size>-<mtime ms>"` in hex; the file id changes with every atomic replace. */
export function etagOf(fileId: string, size: number, mtimeMs: number): string {
  return `"${BigInt(fileId).toString(16)}-${size.toString(16)}-${Math.trunc(mtimeMs).toString(16)}"`;
}

interface EntityTag {
  weak: boolean;
  /** The opaque tag including its quotes. */
  tag: string;
}

/** `*` or a comma-separated list of entity tags, as in If-Match and If-None-Match. */
export function parseEtagList(header: string): '*' | EntityTag[] {
  const value = header.trim();
  if (value === '*') return '*';
  const tags: EntityTag[] = [];
  const re = /\s*(W\/)?("[\x21\x23-\x7e\x80-\uffff]*")\s*(,|$)/gy;
  let match: RegExpExecArray | null;
  while (re.lastIndex < value.length && (match = re.exec(value)) !== null) {
    tags.push({ weak: match[1] !== undefined, tag: match[2]! });
  }
  if (re.lastIndex < value.length || tags.length === 0) throw new EtagSyntaxError(`'${header}' is not a list of entity tags`);
  return tags;
}

/** Strong comparison (If-Match, If-Range): both strong and identical. */
export function strongMatch(a: EntityTag, etag: string): boolean {
  return !a.weak && a.tag === etag;
}

/** Weak comparison (If-None-Match): identical opaque tags. */
export function weakMatch(a: EntityTag, etag: string): boolean {
  return a.tag === etag || a.tag === etag.replace(/^W\//, '');
}
