/**
 * POST /wiki/search request validation and the Elasticsearch requests behind search and the list views.
 * Every request carries the same permission filter (viewerFilter), so list views never show what search hides.
 */
import type { estypes } from '@elastic/elasticsearch';
import { folderKey } from '../wiki/document-id.js';
import { SharePathError } from '../wiki/layout.js';

/** Who is looking: the SIDs matched with allow entries, those matched with deny entries, the visible shares. */
export interface Viewer {
  /** From userSidSet(): narrowed by X-Service-Groups; empty = sees nothing. */
  allowSids: readonly string[];
  /** From tokenSidSet(): the user's whole token, so a deny entry of any of the user's groups hides the page. */
  denySids: readonly string[];
  shares: readonly string[];
  /**
   * The server of each share, by share name (the service's own shares, see WikiSearch). With several proxies on one
   * index the same share name may belong to several servers; a page is then matched by its server and share.
   */
  servers?: ReadonlyMap<string, string>;
}

export interface SearchRequest {
  /** The words searched for. */
  q: string;
  /** Only this share. */
  share?: string | undefined;
  /** Only pages in this folder or below it (share-relative; needs `share`). */
  folder?: string | undefined;
  from: number;
  size: number;
}

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 10;
const MAX_QUERY_LENGTH = 500;
/** Elasticsearch's default `index.max_result_window`. */
const MAX_RESULT_WINDOW = 10_000;

/** A search request that breaks a rule; `field` names the offending field (answer 400). */
export class SearchRequestError extends Error {
  override readonly name = 'SearchRequestError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const KNOWN_FIELDS = new Set(['q', 'share', 'folder', 'from', 'size']);

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SearchRequestError(field, 'must be a string');
  return value;
}

function optionalInteger(body: Record<string, unknown>, field: string, fallback: number, min: number, max: number): number {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new SearchRequestError(field, 'must be an integer');
  if (value < min || value > max) throw new SearchRequestError(field, `must be between ${min} and ${max}`);
  return value;
}

/** A folder path a request may name: share-relative, without `.` or `..` segments. */
export function checkFolder(folder: string, field = 'folder'): void {
  try {
    folderKey(folder);
  } catch (error) {
    if (error instanceof SharePathError) throw new SearchRequestError(field, error.message);
    throw error;
  }
}

/** Validates the JSON body of POST /wiki/search. */
export function parseSearchRequest(body: unknown): SearchRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SearchRequestError('body', 'must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) throw new SearchRequestError(unknown, 'is not a search request field');
  const q = optionalString(fields, 'q')?.trim();
  if (q === undefined || q === '') throw new SearchRequestError('q', 'is required and must not be blank');
  if (q.length > MAX_QUERY_LENGTH) throw new SearchRequestError('q', `must be at most ${MAX_QUERY_LENGTH} characters`);
  const share = optionalString(fields, 'share');
  if (share !== undefined && share.trim() === '') throw new SearchRequestError('share', 'must not be blank');
  const folder = optionalString(fields, 'folder');
  if (folder !== undefined) {
    if (share === undefined) throw new SearchRequestError('folder', 'needs share');
    checkFolder(folder);
  }
  const size = optionalInteger(fields, 'size', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const from = optionalInteger(fields, 'from', 0, 0, MAX_RESULT_WINDOW - size);
  return { q, share, folder, from, size };
}

/** Which part of the visible pages a request looks at. */
interface Scope {
  share?: string | undefined;
  folder?: string | undefined;
  /** `under` (default): the folder and all below it; `exact`: pages of that folder only. */
  folderMatch?: 'under' | 'exact';
}

/**
 * The filter of every query: an allow SID of the viewer in `acl_allow`, no deny SID of the viewer in `acl_deny`, a
 * visible share, the scope.
 * Null when the viewer can see nothing, so the caller answers without asking Elasticsearch.
 */
export function viewerFilter(viewer: Viewer, scope: Scope = {}): estypes.QueryDslBoolQuery | null {
  if (viewer.allowSids.length === 0 || viewer.shares.length === 0) return null;
  if (scope.share !== undefined && !viewer.shares.includes(scope.share)) return null;
  const filter: estypes.QueryDslQueryContainer[] = [
    { terms: { acl_allow: [...viewer.allowSids] } },
    shareFilter(scope.share === undefined ? viewer.shares : [scope.share], viewer.servers),
  ];
  if (scope.folder !== undefined) {
    const key = folderKey(scope.folder);
    if (scope.folderMatch === 'exact') filter.push({ term: { folder_key: key } });
    else if (key !== '') filter.push({ term: { folder_ancestors: key } });
  }
  return { filter, must_not: [{ terms: { acl_deny: [...viewer.denySids] } }] };
}

/** Pages of these shares: by name, or with `servers` by (server, share), leaving out a share of no known server. */
function shareFilter(shares: readonly string[], servers: ReadonlyMap<string, string> | undefined): estypes.QueryDslQueryContainer {
  if (servers === undefined) return { terms: { share: [...shares] } };
  const pairs = shares.flatMap((share) => {
    const server = servers.get(share);
    return server === undefined ? [] : [{ bool: { filter: [{ term: { server } }, { term: { share } }] } }];
  });
  return { bool: { should: pairs, minimum_should_match: 1 } };
}

/** The indexed read ACL, which the live ACL check compares with the file server's (src/search/live-acl.ts). */
const ACL_FIELDS = ['acl_allow', 'acl_deny'];
/** Fields a hit needs from `_source`; the body is only read by the highlighter. */
const HIT_SOURCE_FIELDS = ['share', 'folder', 'page', 'path', 'title', 'modified', ...ACL_FIELDS];
const SNIPPET_LENGTH = 160;

/** The parts of every search body that do not depend on the request, serialised once (see searchBodyJson). */
const SEARCH_SOURCE_JSON = JSON.stringify(HIT_SOURCE_FIELDS);
const SEARCH_FIELDS = ['title^3', 'headings^2', 'body'];
const WORD_OPTIONS_JSON = JSON.stringify({ fields: SEARCH_FIELDS, type: 'cross_fields', operator: 'and' }).slice(1, -1);
/**
 * A word is also looked for as a part of a closed compound, which the analyzer does not split, in the title, which
 * names what a page is about. With the headings (and the body) as well, the relevance corpus ranked no better
 * (nDCG@10 0.883 against 0.880, issue 44), while the prefixes went through far more terms.
 * Weighted as the title is in SEARCH_FIELDS.
 */
const COMPOUND_FIELD = 'title';
const COMPOUND_BOOST = 3;
/** Two words typed apart that pages write as one (`Bruch Rechnung`, `Bruchrechnung`): what was meant, so it counts more. */
const JOINED_BOOST = 2;
/** A word that may be a part of a compound: letters only, at least 4 (shorter ones start or end too many words). */
const COMPOUND_PART = /^\p{L}{4,}$/u;
/** The words of a query looked for as parts of compounds are its first ones: a query may have 500 characters. */
const COMPOUND_WORDS = 10;
/**
 * The typo rule of the second try (see WikiSearch.search): per word after analysis, no change under 4 letters, one
 * changed, added, left out or swapped letter from 4 to 6 letters, two from 7 on.
 */
const TYPO_FUZZINESS = 'AUTO:4,7';
/** cross_fields takes no fuzziness: each word is its own best_fields match, and every word must match. */
const FUZZY_MATCH_OPTIONS_JSON = JSON.stringify({ fields: SEARCH_FIELDS, type: 'best_fields', operator: 'and', fuzziness: TYPO_FUZZINESS }).slice(1, -1);
const HIGHLIGHT_JSON = JSON.stringify({
  // encoder html escapes the page text; only the <mark> tags are markup.
  encoder: 'html',
  pre_tags: ['<mark>'],
  post_tags: ['</mark>'],
  // Pages longer than this are highlighted in their first part instead of failing the search.
  max_analyzed_offset: 999_999,
  fields: {
    body: { fragment_size: SNIPPET_LENGTH, number_of_fragments: 1, no_match_size: SNIPPET_LENGTH },
    title: { number_of_fragments: 0 },
  },
});

/**
 * Matches counted for a search's `total`, at most: as many as paging can reach (`from + size` ≤ MAX_RESULT_WINDOW);
 * beyond it the answer says `total_at_least`. Counting every match visits every page that has a word of the query,
 * which grows with the wiki; counting up to a bound, with the hits sorted by score alone, lets Elasticsearch skip
 * pages that can no longer reach the top hits. On the scale bench's pages, which the queries nearly all match,
 * Elasticsearch's p99 went from 29 ms at 50,000 pages to 177 ms at 500,000 when it counted every match and broke
 * ties by page, and from 18 to 38 ms counting up to 10,000 by score alone (bench/RESULTS.md, Wiki search: what
 * counting every match costs).
 */
export const COUNTED_MATCHES = MAX_RESULT_WINDOW;

/** How the words are matched: as typed (after analysis), or with the typo rule (TYPO_FUZZINESS). */
export type MatchMode = 'exact' | 'typo';

/** Each two neighbouring words of letters joined into one, as pages write them (`Bruch Rechnung`, `Bruchrechnung`). */
function joinedClausesJson(parts: readonly string[]): string[] {
  const clauses: string[] = [];
  for (let i = 0; i + 1 < parts.length; i++) {
    if (!COMPOUND_PART.test(parts[i]!) || !COMPOUND_PART.test(parts[i + 1]!)) continue;
    clauses.push(`{"multi_match":{"query":${JSON.stringify(parts[i]! + parts[i + 1]!)},${WORD_OPTIONS_JSON},"boost":${JOINED_BOOST}}}`);
  }
  return clauses;
}

/**
 * Each word of letters as the start of a word of the title, analysed as the field is (match_bool_prefix: `Brüche`
 * looks for bruch*, finding `Bruchrechnung`). Not as its end (`Turnier` in `Fußballturnier`): a leading wildcard goes
 * through every word of every title, a cost that grows with the wiki (bench/RESULTS.md, Wiki search: what the
 * compound clauses cost).
 */
function titleStartClausesJson(parts: readonly string[]): string[] {
  return parts.filter((part) => COMPOUND_PART.test(part))
    .map((word) => `{"match_bool_prefix":{"${COMPOUND_FIELD}":{"query":${JSON.stringify(word)},"boost":${COMPOUND_BOOST}}}}`);
}

/** A bool query's body: at least one of the clauses. */
const anyOfJson = (clauses: readonly string[]) => `{"bool":{"should":[${clauses.join(',')}],"minimum_should_match":1}}`;

/** What the words match, and what the highlighter marks in a hit (HIGHLIGHT_JSON with its highlight_query). */
interface WordsQuery {
  query: string;
  highlight: string;
}

/**
 * As typed: pages with any of the words (each whole, WORD_OPTIONS_JSON) or of their compounds (a page about one
 * aspect of a topic often lacks one of the words), those with more of them first. The highlighter marks the words and
 * the joined pairs only: given the starts of title words (prefixes) as well, it cost about 0.6 ms more per search at
 * 50,000 pages, a quarter of the search (bench/RESULTS.md, Wiki search: what the compound clauses cost). With the typo rule: every word, each with its
 * typos, marked as matched.
 */
function wordsQuery(q: string, mode: MatchMode): WordsQuery {
  const words = q.split(/\s+/);
  if (mode === 'typo') {
    return { query: words.map((word) => `{"multi_match":{"query":${JSON.stringify(word)},${FUZZY_MATCH_OPTIONS_JSON}}}`).join(','), highlight: HIGHLIGHT_JSON };
  }
  const parts = words.slice(0, COMPOUND_WORDS);
  const typed = words.map((word) => `{"multi_match":{"query":${JSON.stringify(word)},${WORD_OPTIONS_JSON}}}`);
  const marked = [...typed, ...joinedClausesJson(parts)];
  return {
    query: anyOfJson([...marked, ...titleStartClausesJson(parts)]),
    highlight: `${HIGHLIGHT_JSON.slice(0, -1)},"highlight_query":${anyOfJson(marked)}}`,
  };
}

/** The viewer's permission filter with `must` added, as the JSON text of a bool query's body. */
function filteredBoolJson(permission: estypes.QueryDslBoolQuery, must: string): string {
  return `${JSON.stringify(permission).slice(0, -1)},"must":[${must}]}`;
}

/**
 * The body of a search as JSON text: the constant parts serialised once at load, only the viewer's filter and the
 * words serialised per search (the request path's CPU: bench/RESULTS.md, Request path profile). Null when the viewer
 * can see nothing.
 */
export function searchBodyJson(request: SearchRequest, viewer: Viewer, mode: MatchMode = 'exact'): string | null {
  const permission = viewerFilter(viewer, { share: request.share, folder: request.folder });
  if (permission === null) return null;
  const words = wordsQuery(request.q, mode);
  const bool = filteredBoolJson(permission, words.query);
  // Sorted by score alone (Elasticsearch's default): pages of equal score come in the index's own order, the same
  // from the same copies of the index (WikiSearch sends a `preference` per query), so paging with `from` neither
  // skips a page nor shows one twice while the index is unchanged (a save or a segment merge between two pages can
  // reorder ties). A tiebreak on a field would keep Elasticsearch from skipping (COUNTED_MATCHES).
  return `{"from":${request.from},"size":${request.size},"track_total_hits":${COUNTED_MATCHES},"_source":${SEARCH_SOURCE_JSON},`
    + `"query":{"bool":${bool}},"highlight":${words.highlight}}`;
}

/** GET /wiki/suggest: the start of what is being typed. */
export interface SuggestRequest {
  q: string;
  share?: string | undefined;
  /** Most suggestions. */
  size: number;
}

const DEFAULT_SUGGESTIONS = 8;
const MAX_SUGGESTIONS = 20;
const MAX_SUGGEST_LENGTH = 100;

/** Validates the query string of GET /wiki/suggest (`q`, optional `share` and `size`). */
export function parseSuggestRequest(query: URLSearchParams): SuggestRequest {
  const q = query.get('q')?.trim();
  if (q === undefined || q === '') throw new SearchRequestError('q', 'is required and must not be blank');
  if (q.length > MAX_SUGGEST_LENGTH) throw new SearchRequestError('q', `must be at most ${MAX_SUGGEST_LENGTH} characters`);
  const share = query.get('share') ?? undefined;
  if (share !== undefined && share.trim() === '') throw new SearchRequestError('share', 'must not be blank');
  const sizeText = query.get('size');
  const size = sizeText === null ? DEFAULT_SUGGESTIONS : Number(sizeText);
  if (!/^\d+$/.test(sizeText ?? '0') || size < 1 || size > MAX_SUGGESTIONS) {
    throw new SearchRequestError('size', `must be an integer between 1 and ${MAX_SUGGESTIONS}`);
  }
  return { q, share, size };
}

/** Fields a suggestion needs from `_source`. */
const SUGGEST_SOURCE_FIELDS = ['share', 'folder', 'page', 'path', 'title', ...ACL_FIELDS];

/**
 * Pages whose title or a heading has every typed word, the last one as a prefix (match_bool_prefix, analysed as the
 * field is: "Häu" finds Häuser, "Schue" Schüler), under the same permission filter as search. A page's title counts
 * more than its headings. The highlighter, with empty tags, names the matching title and headings whole.
 * Null when the viewer can see nothing.
 */
export function suggestBody(request: SuggestRequest, viewer: Viewer): estypes.SearchRequest | null {
  const permission = viewerFilter(viewer, { share: request.share });
  if (permission === null) return null;
  const prefix = (field: string, boost: number): estypes.QueryDslQueryContainer =>
    ({ match_bool_prefix: { [field]: { query: request.q, operator: 'and', boost } } });
  return {
    size: request.size,
    _source: SUGGEST_SOURCE_FIELDS,
    query: { bool: { ...permission, must: [{ bool: { should: [prefix('title', 2), prefix('headings', 1)], minimum_should_match: 1 } }] } },
    highlight: {
      pre_tags: [''],
      post_tags: [''],
      fields: { title: { number_of_fragments: 0 }, headings: { number_of_fragments: 0 } },
    },
  };
}

/** Most pages a folder listing returns. */
const MAX_LISTED_PAGES = 1000;

/** The pages of exactly one folder (not its sub-folders), start page first, then by name. */
export function buildPageListBody(share: string, folder: string, viewer: Viewer): estypes.SearchRequest | null {
  const permission = viewerFilter(viewer, { share, folder, folderMatch: 'exact' });
  if (permission === null) return null;
  return {
    size: MAX_LISTED_PAGES,
    track_total_hits: true,
    _source: ['share', 'page', 'path', 'title', 'modified', 'is_start_page', ...ACL_FIELDS],
    query: { bool: permission },
    sort: [{ is_start_page: 'desc' }, { page: 'asc' }],
  };
}

/** Composite buckets per request of the roots listing. */
export const ROOTS_PAGE_SIZE = 500;

/** Distinct (share, folder) pairs with a page the viewer may see, and whether a visible start page is among them. */
export function buildRootsBody(viewer: Viewer, after?: Record<string, string>): estypes.SearchRequest | null {
  const permission = viewerFilter(viewer);
  if (permission === null) return null;
  return {
    size: 0,
    query: { bool: permission },
    aggs: {
      roots: {
        composite: {
          size: ROOTS_PAGE_SIZE,
          sources: [{ share: { terms: { field: 'share' } } }, { folder: { terms: { field: 'folder' } } }],
          ...(after === undefined ? {} : { after }),
        },
        aggs: { start_pages: { filter: { term: { is_start_page: true } } } },
      },
    },
  };
}
