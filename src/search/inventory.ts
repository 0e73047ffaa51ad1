/**
 * What the index holds for one share: id, path and version token of every document, for the drift reconciler to
 * diff against the `.wiki/` folders on SMB (index what is missing or changed, delete what is gone).
 * Unlike search this throws when Elasticsearch fails: an unreadable index must not look like an empty one.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { DEFAULT_ALIAS } from './mapping.js';

export interface IndexedPage {
  id: string;
  path: string;
  version: string;
}

export interface InventoryOptions {
  /** Alias read; default `wiki-md`. */
  alias?: string;
  /** Documents per request; default 1000. */
  pageSize?: number;
}

/** Every indexed page of `share`, ordered by path, fetched page by page with search_after. */
export async function* indexedPages(client: Client, share: string, options: InventoryOptions = {}): AsyncGenerator<IndexedPage> {
  const size = options.pageSize ?? 1000;
  let after: estypes.SortResults | undefined;
  do {
    const response = await client.search<Pick<IndexedPage, 'path' | 'version'>>({
      index: options.alias ?? DEFAULT_ALIAS,
      size,
      _source: ['path', 'version'],
      query: { bool: { filter: [{ term: { share } }] } },
      // Paths are unique within a share, so they order the pages completely.
      sort: [{ path: 'asc' }],
      ...(after === undefined ? {} : { search_after: after }),
    });
    const hits = response.hits.hits;
    for (const hit of hits) yield { id: hit._id!, path: hit._source!.path, version: hit._source!.version };
    after = hits.length === size ? hits[hits.length - 1]!.sort : undefined;
  } while (after !== undefined);
}
