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

/**
 * Every folder of `share` that holds indexed pages, as written (the distinct `folder` values, a composite
 * aggregation paged through). The change watch tells with these which folders matter to the index.
 */
export async function indexedFolders(client: Client, share: string, options: InventoryOptions = {}): Promise<string[]> {
  const folders: string[] = [];
  let after: Record<string, estypes.FieldValue> | undefined;
  do {
    const response = await client.search({
      index: options.alias ?? DEFAULT_ALIAS,
      size: 0,
      query: { bool: { filter: [{ term: { share } }] } },
      aggs: {
        folders: {
          composite: {
            size: options.pageSize ?? 1000,
            sources: [{ folder: { terms: { field: 'folder' } } }],
            ...(after === undefined ? {} : { after }),
          },
        },
      },
    });
    const aggregate = response.aggregations?.['folders'] as estypes.AggregationsCompositeAggregate | undefined;
    const buckets = (aggregate?.buckets ?? []) as estypes.AggregationsCompositeBucket[];
    for (const bucket of buckets) folders.push(String(bucket.key['folder']));
    after = buckets.length > 0 ? aggregate?.after_key : undefined;
  } while (after !== undefined);
  return folders;
}
