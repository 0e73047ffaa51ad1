/**
 * A wiki page as a search index document: plain text from the Markdown token stream (markdown-it), the page's
 * place in the share, its read ACL and a version token for drift detection.
 */
import MarkdownIt, { type Token } from 'markdown-it';
import type { DocumentAcl } from './acl.js';
import { documentId, folderKey } from './document-id.js';
import { versionToken } from './version-token.js';
import { folderAncestry, SharePathError, wikiPageLocation } from './layout.js';

/** The index document; field names are the index mapping's (src/search/mapping.ts). */
export interface WikiDocument {
  /** Elasticsearch `_id`, see documentId(). */
  id: string;
  server: string;
  share: string;
  /** Folder holding the page's `.wiki/`, as spelled in the share ('' = share root). */
  folder: string;
  /** folderKey(folder): the folder compared case- and normalisation-insensitively. */
  folder_key: string;
  /** folderKey of the folder and each of its ancestors, for "under this folder" filters. */
  folder_ancestors: string[];
  /** File name without `.md`. */
  page: string;
  /** Share-relative path of the `.md` file. */
  path: string;
  is_start_page: boolean;
  title: string;
  headings: string[];
  body: string;
  size: number;
  /** ISO 8601 modification time of the file. */
  modified: string;
  /** versionToken(): changes when size, modification time or read ACL change. */
  version: string;
  acl_allow: string[];
  acl_deny: string[];
  indexed_at: string;
}

/** What the indexer read from SMB for one page. */
export interface WikiPageSource {
  server: string;
  share: string;
  /** Share-relative path of the page. */
  path: string;
  /** The file content (UTF-8). */
  content: string | Uint8Array;
  /** File size as SMB reports it. */
  size: number;
  modified: Date;
  /** The page's read ACL: deriveAcl of its security descriptor, where that was read. */
  acl: DocumentAcl;
}

interface MarkdownText {
  /** Text of the first heading, null when the page has none. */
  title: string | null;
  headings: string[];
  /** All text of the page, one line per block; raw HTML left out. */
  body: string;
}

// markdown-it stays on 14.x: 15 ships only a bundle whose class fields are transpiled to Object.defineProperty
// calls, and parses the same pages into the same tokens markedly slower (bench/RESULTS.md, Figures from source
// comments).
// `html: true` makes markdown-it emit raw HTML as html_block / html_inline tokens, which are then left out.
const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** Text of inline children: text, code spans, image alt text; links keep their text, HTML tags are dropped. */
function inlineText(tokens: readonly Token[]): string {
  let text = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline') text += token.content;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' ';
    else if (token.type === 'image') text += inlineText(token.children ?? []);
  }
  // Most inline text has single spaces only: finding that out costs less than rewriting it.
  return SPACING_TO_COLLAPSE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** Whitespace that inlineText's result must not keep: at either end, two in a row, or other than a space. */
const SPACING_TO_COLLAPSE = /^\s|\s$|\s\s|[^\S ]/;

export function markdownToText(source: string): MarkdownText {
  const tokens = markdown.parse(source, {});
  const blocks: string[] = [];
  const headings: string[] = [];
  let inHeading = false;
  for (const token of tokens) {
    if (token.type === 'heading_open') inHeading = true;
    else if (token.type === 'heading_close') inHeading = false;
    else if (token.type === 'inline') {
      const text = inlineText(token.children ?? []);
      if (inHeading && text !== '') headings.push(text);
      if (text !== '') blocks.push(text);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      const code = token.content.replace(/\n+$/, '');
      if (code.trim() !== '') blocks.push(code);
    }
  }
  return { title: headings[0] ?? null, headings, body: blocks.join('\n') };
}

const utf8 = new TextDecoder('utf-8');

export function buildWikiDocument(source: WikiPageSource, indexedAt: Date = new Date()): WikiDocument {
  const location = wikiPageLocation(source.path);
  if (location === null) {
    throw new SharePathError(`'${source.path}' is not a wiki page (a *.md file directly inside a .wiki folder)`);
  }
  const text = typeof source.content === 'string' ? source.content.replace(/^\uFEFF/, '') : utf8.decode(source.content);
  const { title, headings, body } = markdownToText(text);
  return {
    id: documentId(source.server, source.share, location.path),
    server: source.server,
    share: source.share,
    folder: location.folder,
    folder_key: folderKey(location.folder),
    folder_ancestors: folderAncestry(folderKey(location.folder)),
    page: location.page,
    path: location.path,
    is_start_page: location.isStartPage,
    title: title ?? location.page,
    headings,
    body,
    size: source.size,
    modified: source.modified.toISOString(),
    version: versionToken(source.size, source.modified, source.acl),
    acl_allow: source.acl.allow,
    acl_deny: source.acl.deny,
    indexed_at: indexedAt.toISOString(),
  };
}
