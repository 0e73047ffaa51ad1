// Request paths under /dav/{share}/{path}: decoded once, checked strictly, and
// turned into a share-relative path for SMB; and the way back, from a share
// path to the href a response names it by.

export const DAV_PREFIX = '/dav/';

/** Longest accepted name (one path segment) and share-relative path, in UTF-16 code units as SMB counts them. */
const MAX_NAME_LENGTH = 255;
const MAX_PATH_LENGTH = 1024;

/** A request path that could escape the share or name something SMB would misread: answered 400. */
export class DavPathError extends Error {
  override readonly name = 'DavPathError';
}

/** A resource as the lock table and property store key it: share + share-relative path. */
export interface DavResource {
  share: string;
  /** Share-relative, `/`-separated, '' for the share root. */
  path: string;
}

export interface DavLocation {
  /** The share as configured (the request may spell it in another case). */
  share: string;
  /** Share-relative, `/`-separated, no leading or trailing slash; '' is the share root. */
  path: string;
  /** The request named a collection (`.../`). */
  trailingSlash: boolean;
}

// Raw bytes allowed in a request path: RFC 3986 pchar and '/'; anything else must arrive percent-encoded.
const RAW_ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
// Characters SMB forbids in names; ':' would also open an alternate data stream.
const SMB_FORBIDDEN = /[\\/:*?"<>|]/;
// C0 and C1 controls, DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Zero-width and bidirectional controls: names that display as something else.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * Parses the raw (percent-encoded) path of a request below `/dav/`. `shares`
 * are the configured share names. Returns undefined when the share is not
 * configured (a 404, not a malformed path).
 */
export function parseDavPath(rawPath: string, shares: readonly string[]): DavLocation | undefined {
  if (!rawPath.startsWith(DAV_PREFIX)) throw new DavPathError(`path '${rawPath}' is not below ${DAV_PREFIX}`);
  const rest = rawPath.slice(DAV_PREFIX.length);
  if (!RAW_ALLOWED.test(rest)) {
    throw new DavPathError('the path contains characters that must be percent-encoded (e.g. space, #, \\ or non-ASCII)');
  }
  const rawSegments = rest.split('/');
  const trailingSlash = rawSegments.length > 1 && rawSegments[rawSegments.length - 1] === '';
  if (trailingSlash) rawSegments.pop();
  const [rawShare, ...rawNames] = rawSegments;
  if (rawShare === undefined || rawShare === '') throw new DavPathError(`the path must name a share: ${DAV_PREFIX}{share}/...`);
  const shareName = decodeSegment(rawShare);
  checkName(shareName);
  const share = shares.find((s) => s.toLowerCase() === shareName.toLowerCase());
  const names = rawNames.map((raw) => {
    if (raw === '') throw new DavPathError('the path contains an empty segment (//)');
    const name = decodeSegment(raw);
    checkName(name);
    checkName(name.normalize('NFKC'), ' in its Unicode compatibility form');
    return name;
  });
  const path = names.join('/');
  if (path.length > MAX_PATH_LENGTH) throw new DavPathError(`the path is longer than ${MAX_PATH_LENGTH} characters`);
  return share === undefined ? undefined : { share, path, trailingSlash };
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DavPathError(`segment '${raw}' is not valid percent-encoded UTF-8`);
  }
}

/** Throws DavPathError when `name` cannot be a file or folder name inside a share. */
function checkName(name: string, form = ''): void {
  const why = nameProblem(name);
  if (why !== undefined) throw new DavPathError(`name '${printable(name)}'${form} ${why}`);
}

function nameProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return 'is a relative path segment';
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (CONTROL.test(name)) return 'contains a control character';
  if (SMB_FORBIDDEN.test(name)) return 'contains one of \\ / : * ? " < > | (separators, streams and wildcards are not allowed)';
  if (INVISIBLE.test(name)) return 'contains an invisible or bidirectional control character';
  if (/[. ]$/.test(name)) return 'ends in a dot or a space';
  if (/%[0-9a-f]{2}/i.test(name)) return 'is still percent-encoded after decoding (double encoding)';
  return undefined;
}

function printable(name: string): string {
  return encodeURIComponent(name.length > 80 ? `${name.slice(0, 80)}...` : name);
}

/** The href of a share path: every segment percent-encoded, collections with a trailing slash. */
export function hrefOf(share: string, path: string, collection: boolean): string {
  const segments = path === '' ? [] : path.split('/');
  const encoded = [share, ...segments].map(encodeURIComponent).join('/');
  return `${DAV_PREFIX}${encoded}${collection ? '/' : ''}`;
}

/** The share-relative parent of a path ('' for top-level names and for the root). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** The identity of a share path as SMB sees it: names compare case-insensitively. */
export function resourceKey(r: { share: string; path: string }): string {
  return `${r.share.toLowerCase()}\u0000${r.path.toLowerCase()}`;
}

/** Whether `path` is `ancestor` itself or lies below it (SMB names compare case-insensitively). */
export function isWithin(path: string, ancestor: string): boolean {
  const p = path.toLowerCase();
  const a = ancestor.toLowerCase();
  return a === '' || p === a || p.startsWith(`${a}/`);
}
