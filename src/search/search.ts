/**
 * Search and list views over the wiki index, always filtered by the viewer's SIDs and visible shares.
 * Elasticsearch being down or failing is not an error for the caller: the answer is empty and `degraded: true`
 * (spec: "Search engine down → wiki search returns no hits").
 */
import { createHash } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import { describeSearchError } from './search-failure.js';
import { silentLog, type Logger } from '../common/logger.js';
import type { IndexedEntry, LiveAcl } from './live-acl.js';
import { DEFAULT_ALIAS } from './mapping.js';
import {
  buildPageListBody,
  buildRootsBody,
  checkFolder,
  ROOTS_PAGE_SIZE,
  searchBodyJson,
  suggestBody,
  type MatchMode,
  type SearchRequest,
  type SuggestRequest,
  type Viewer,
} from './query.js';

interface SearchHit {
  share: string;
  /** Folder holding the page's `.wiki/` ('' = share root). */
  folder: string;
  page: string;
  path: string;
  /** Plain text, not HTML. */
  title: string;
  /** HTML: page text escaped, matches wrapped in `<mark>…</mark>`. */
  snippet: string;
  score: number;
  modified: string;
}

/** `degraded` is set when Elasticsearch could not answer; the lists are then empty. */
interface Degradable {
  degraded?: true;
}

export interface SearchResult extends Degradable {
  /** Pages that match, up to COUNTED_MATCHES (as many as paging reaches). */
  total: number;
  /** Set when more pages match than were counted: `total` is then a lower bound. */
  total_at_least?: true;
  hits: SearchHit[];
  /** Set when no page had any word as typed (nor a compound of them) and the hits are those of the typo-tolerant second try. */
  corrected?: true;
}

/** A title or heading that starts with what is being typed, and the page it leads to. */
interface Suggestion {
  /** The page's title or one of its headings, as written. */
  text: string;
  kind: 'title' | 'heading';
  share: string;
  folder: string;
  page: string;
  path: string;
}

export interface SuggestResult extends Degradable {
  suggestions: Suggestion[];
}

interface PageEntry {
  page: string;
  path: string;
  title: string;
  modified: string;
  is_start_page: boolean;
}

export interface PageListing extends Degradable {
  total: number;
  pages: PageEntry[];
}

interface WikiRoot {
  share: string;
  folder: string;
  /** Pages of this folder the viewer may see. */
  pages: number;
  /** Whether the folder has an `index.md` the viewer may see. */
  has_start_page: boolean;
}

export interface RootListing extends Degradable {
  roots: WikiRoot[];
}

interface WikiSearchOptions {
  client: Client;
  /** Alias searched; default `wiki-md`. */
  alias?: string;
  /** The server of each share the service serves: its searches see only those (server, share) pairs. */
  servers?: ReadonlyMap<string, string>;
  /** Checks every entry of an answer against the file server's ACL of the page now (src/search/live-acl.ts). */
  liveAcl?: LiveAcl;
  log?: Logger;
}

type HitSource = Pick<SearchHit, 'share' | 'folder' | 'page' | 'path' | 'title' | 'modified'> & IndexedEntry;
type SuggestSource = Omit<Suggestion, 'text' | 'kind'> & { title: string } & IndexedEntry;
type PageSource = PageEntry & IndexedEntry;

/** What a search answer needs of Elasticsearch's response (filter_path): less to send, and less to parse here. */
export const SEARCH_FILTER_PATH = ['hits.total', 'hits.hits._source', 'hits.hits._score', 'hits.hits.highlight'].join(',');
const SEARCH_QUERYSTRING = `filter_path=${SEARCH_FILTER_PATH}`;

/**
 * The query string of one search: the filter path, and a `preference` of its words, so that the same search goes to
 * the same copies of the index and pages of equal score come back in the same order for each page of hits
 * (searchBodyJson sorts by score alone). A hash: Elasticsearch reads a preference that starts with `_` as an option.
 */
function searchQuerystring(request: SearchRequest): string {
  const preference = createHash('sha256').update(`${request.share ?? ''}\0${request.folder ?? ''}\0${request.q}`).digest('base64url').slice(0, 16);
  return `${SEARCH_QUERYSTRING}&preference=q${preference}`;
}
/** The body searchBodyJson gives is text: the client is told it is JSON (it would send text/plain). */
const JSON_BODY = { headers: { 'content-type': 'application/json' } };

function totalOf(total: estypes.SearchHitsMetadata['total']): number {
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

/** Whether Elasticsearch stopped counting (`track_total_hits` reached): more pages match than the total says. */
function moreThanCounted(total: estypes.SearchHitsMetadata['total']): boolean {
  return typeof total === 'object' && total.relation === 'gte';
}

export class WikiSearch {
  private readonly client: Client;
  private readonly alias: string;
  private readonly servers: ReadonlyMap<string, string> | undefined;
  private readonly log: Logger;
  private readonly searchPath: string;
  private readonly liveAcl: LiveAcl | undefined;

  constructor(options: WikiSearchOptions) {
    this.client = options.client;
    this.alias = options.alias ?? DEFAULT_ALIAS;
    this.searchPath = `/${encodeURIComponent(this.alias)}/_search`;
    this.servers = options.servers;
    this.liveAcl = options.liveAcl;
    this.log = options.log ?? silentLog;
  }

  /** The entries the viewer may see by the file server's ACL now; without a live check, all of them. */
  private async checked<T extends IndexedEntry>(entries: T[], viewer: Viewer): Promise<{ visible: T[]; hidden: number }> {
    return this.liveAcl === undefined ? { visible: entries, hidden: 0 } : this.liveAcl.check(entries, viewer);
  }

  /** The viewer limited to this service's (server, share) pairs. */
  private scoped(viewer: Viewer): Viewer {
    return this.servers === undefined ? viewer : { ...viewer, servers: this.servers };
  }

  /**
   * Full-text search; `request` comes from parseSearchRequest(). The hot path of the wiki: the body is prepared
   * text and goes through the client's transport (its node pool and retries) without the search API's parameter
   * handling, a measurable part of the service's CPU per search (bench/RESULTS.md, Request path profile).
   * When no page has any of the words (nor a compound of them), a second try allows typos (TYPO_FUZZINESS) under the
   * same permission filter, and its answer says `corrected: true`.
   */
  async search(request: SearchRequest, viewer: Viewer): Promise<SearchResult> {
    const scoped = this.scoped(viewer);
    const exact = await this.searchIn(request, scoped, 'exact');
    if (exact.total > 0 || exact.degraded) return exact;
    const typo = await this.searchIn(request, scoped, 'typo');
    return typo.total > 0 ? { ...typo, corrected: true } : exact;
  }

  private async searchIn(request: SearchRequest, viewer: Viewer, mode: MatchMode): Promise<SearchResult> {
    const body = searchBodyJson(request, viewer, mode);
    if (body === null) return { total: 0, hits: [] };
    return this.degradable<SearchResult>('search', { total: 0, hits: [] }, async () => {
      const response = await this.client.transport.request<estypes.SearchResponse<HitSource>>(
        { method: 'POST', path: this.searchPath, querystring: searchQuerystring(request), body }, JSON_BODY);
      // filter_path leaves `hits.hits` out when nothing matched.
      const found = (response.hits.hits ?? []).map((hit) => ({ ...hit._source!, hit }));
      const { visible, hidden } = await this.checked(found, viewer);
      return {
        total: totalOf(response.hits.total) - hidden,
        ...(moreThanCounted(response.hits.total) ? { total_at_least: true as const } : {}),
        hits: visible.map(({ share, folder, page, path, title, modified, hit }) => ({
          share,
          folder,
          page,
          path,
          title,
          snippet: hit.highlight?.body?.[0] ?? hit.highlight?.title?.[0] ?? '',
          score: hit._score ?? 0,
          modified,
        })),
      };
    });
  }

  /**
   * Titles and headings of the pages the viewer may see that match what is being typed (GET /wiki/suggest), best
   * page first, a page's title before its headings; a heading equal to its page's title is not repeated.
   */
  async suggest(request: SuggestRequest, viewer: Viewer): Promise<SuggestResult> {
    const body = suggestBody(request, this.scoped(viewer));
    if (body === null) return { suggestions: [] };
    return this.degradable<SuggestResult>('suggest', { suggestions: [] }, async () => {
      const response = await this.client.search<SuggestSource>({ index: this.alias, ...body });
      const found = response.hits.hits.map((hit) => ({ ...hit._source!, highlight: hit.highlight }));
      const { visible } = await this.checked(found, viewer);
      const suggestions: Suggestion[] = [];
      for (const { share, folder, page, path, title, highlight } of visible) {
        const titles = highlight?.['title'] ?? [];
        const headings = (highlight?.['headings'] ?? []).filter((heading) => heading !== title);
        for (const text of titles) suggestions.push({ text, kind: 'title', share, folder, page, path });
        for (const text of headings) suggestions.push({ text, kind: 'heading', share, folder, page, path });
      }
      return { suggestions: suggestions.slice(0, request.size) };
    });
  }

  /** The pages of one folder's `.wiki/` the viewer may see (GET /wiki/pages). Throws SearchRequestError for a bad folder. */
  async listPages(share: string, folder: string, viewer: Viewer): Promise<PageListing> {
    checkFolder(folder);
    const body = buildPageListBody(share, folder, this.scoped(viewer));
    if (body === null) return { total: 0, pages: [] };
    return this.degradable<PageListing>('listPages', { total: 0, pages: [] }, async () => {
      const response = await this.client.search<PageSource>({ index: this.alias, ...body });
      const { visible, hidden } = await this.checked(response.hits.hits.map((hit) => hit._source!), viewer);
      return {
        total: totalOf(response.hits.total) - hidden,
        pages: visible.map(({ page, path, title, modified, is_start_page }) => ({ page, path, title, modified, is_start_page })),
      };
    });
  }

  /** Every (share, folder) with a wiki page the viewer may see, sorted by share and folder (GET /wiki/roots). */
  async listRoots(asked: Viewer): Promise<RootListing> {
    const viewer = this.scoped(asked);
    if (buildRootsBody(viewer) === null) return { roots: [] };
    return this.degradable<RootListing>('listRoots', { roots: [] }, async () => {
      const roots: WikiRoot[] = [];
      let after: Record<string, string> | undefined;
      do {
        const response = await this.client.search({ index: this.alias, ...buildRootsBody(viewer, after)! });
        const aggregation = response.aggregations?.['roots'] as estypes.AggregationsCompositeAggregate | undefined;
        const buckets = (aggregation?.buckets ?? []) as estypes.AggregationsCompositeBucket[];
        for (const bucket of buckets) {
          const startPages = bucket['start_pages'] as estypes.AggregationsFilterAggregate;
          roots.push({
            share: String(bucket.key['share']),
            folder: String(bucket.key['folder']),
            pages: bucket.doc_count,
            has_start_page: startPages.doc_count > 0,
          });
        }
        after = buckets.length === ROOTS_PAGE_SIZE ? (aggregation?.after_key as Record<string, string> | undefined) : undefined;
      } while (after !== undefined);
      return { roots };
    });
  }

  private async degradable<T extends Degradable>(operation: string, empty: T, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      this.log.warn({ operation, index: this.alias, ...describeSearchError(error) }, 'search index unavailable, answering degraded');
      return { ...empty, degraded: true };
    }
  }
}
