/**
 * Where wiki pages live in a share (spec §1 "Storage layout"):
 * - a `.wiki/` folder may sit in the share root or in any regular folder; that folder is the page's `folder`;
 * - only `*.md` files directly inside `.wiki/` are pages; `.wiki/` has no sub-folders;
 * - `index.md` is the start page of the folder that holds the `.wiki/`.
 *
 * Paths here are share-relative: segments joined with `/`, no leading or trailing slash, '' for the share root.
 * Backslashes are accepted as separators on input. SMB names are case-insensitive, so `.wiki`, `.md` and
 * `index.md` are recognised in any letter case.
 */

export const WIKI_DIR = '.wiki';
const PAGE_EXTENSION = '.md';
const START_PAGE_NAME = 'index';

/** A share-relative path that cannot name anything in a share (`..`, `.`, NUL). */
export class SharePathError extends Error {
  override readonly name = 'SharePathError';
}

/** Splits a share-relative path into its segments; '' and '/' give []. */
function splitSharePath(path: string): string[] {
  const segments = path.split(/[\\/]/).filter((s) => s !== '');
  for (const segment of segments) {
    if (segment === '.' || segment === '..') throw new SharePathError(`path '${path}' contains a '${segment}' segment`);
    if (segment.includes('\0')) throw new SharePathError(`path '${path}' contains a NUL character`);
  }
  return segments;
}

/** The canonical spelling of a share-relative path: `/`-separated, no leading or trailing slash. */
export function normalizeSharePath(path: string): string {
  return splitSharePath(path).join('/');
}

function isWikiDirName(segment: string): boolean {
  return segment.toLowerCase() === WIKI_DIR;
}

function pageNameOf(fileName: string): string | null {
  const stem = fileName.slice(0, -PAGE_EXTENSION.length);
  return fileName.toLowerCase().endsWith(PAGE_EXTENSION) && stem !== '' ? stem : null;
}

/** The first `.wiki` among the parent folders is the last one: `.wiki/` has no sub-folders and cannot nest. */
function isDirectlyInWikiDir(parents: readonly string[]): boolean {
  return parents.length > 0 && parents.findIndex(isWikiDirName) === parents.length - 1;
}

interface WikiPageLocation {
  /** Canonical share-relative path of the `.md` file. */
  path: string;
  /** The folder holding the `.wiki/` ('' = share root). */
  folder: string;
  /** File name without `.md`. */
  page: string;
  /** `index.md`: the folder's start page. */
  isStartPage: boolean;
}

/** Where a share-relative path sits in the wiki layout; null when it is not a wiki page. */
export function wikiPageLocation(path: string): WikiPageLocation | null {
  const segments = splitSharePath(path);
  const parents = segments.slice(0, -1);
  if (!isDirectlyInWikiDir(parents)) return null;
  const page = pageNameOf(segments[segments.length - 1]!);
  if (page === null) return null;
  return {
    path: segments.join('/'),
    folder: parents.slice(0, -1).join('/'),
    page,
    isStartPage: page.toLowerCase() === START_PAGE_NAME,
  };
}

export function isWikiPage(path: string): boolean {
  return wikiPageLocation(path) !== null;
}

/** Whether the path names a `.wiki/` folder (in the share root or a regular folder). */
export function isWikiDir(path: string): boolean {
  const segments = splitSharePath(path);
  return isDirectlyInWikiDir(segments);
}

/**
 * Ancestors of a folder, outermost first, ending with the folder itself; [] for the share root.
 * `Fachschaften/Deutsch` → [`Fachschaften`, `Fachschaften/Deutsch`].
 */
export function folderAncestry(folder: string): string[] {
  const segments = splitSharePath(folder);
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

type WikiWriteViolationCode = 'wiki_subfolder' | 'wiki_non_markdown';

interface WikiWriteViolation {
  code: WikiWriteViolationCode;
  message: string;
}

/**
 * What the WebDAV layer checks before creating (PUT, MKCOL, COPY/MOVE destination) an entry at `path`:
 * inside a `.wiki/` folder only `*.md` files may appear and no folders. Null when the write is allowed.
 */
export function wikiWriteViolation(path: string, kind: 'file' | 'folder'): WikiWriteViolation | null {
  const segments = splitSharePath(path);
  const parents = segments.slice(0, -1);
  if (!parents.some(isWikiDirName)) return null;
  if (kind === 'folder' || !isDirectlyInWikiDir(parents)) {
    return { code: 'wiki_subfolder', message: `'${path}': a .wiki folder cannot contain sub-folders` };
  }
  if (pageNameOf(segments[segments.length - 1]!) === null) {
    return { code: 'wiki_non_markdown', message: `'${path}': only Markdown files (*.md) may be stored in a .wiki folder` };
  }
  return null;
}
