/**
 * What the index holds for one share: id, path and version token of every document, for the drift reconciler to
 * diff against the `.wiki/` folders on SMB (index what is missing or changed, delete what is gone).
 * Unlike search this throws when Elasticsearch fails: an unreadable index must not look like an empty one.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { folderKey } from '../../wiki/document-id.js';
import { DEFAULT_ALIAS } from '../../search/mapping.js';

export interface IndexedPage {
  id: string;
  path: string;
  version: string;
}

/** A share as the documents name it: with several proxies on one index, the same share name may live on several servers. */
export interface IndexedShare {
  server: string;
  share: string;
}

/** The documents of one share of one server, and no other's. */
export function shareQuery({ server, share }: IndexedShare): estypes.QueryDslQueryContainer {
  return { bool: { filter: [{ term: { server } }, { term: { share } }] } };
}

interface InventoryOptions {
  /** Alias read; default `wiki-md`. */
  alias?: string;
  /** Documents per request; default 1000. */
  pageSize?: number;
  /** Only the documents below this folder (as written; '' or omitted: the whole share). */
  folder?: string;
}

/** The documents of one share, or of one folder's subtree in it (`folder_ancestors` holds every folder above a page). */
function scopeQuery(share: IndexedShare, folder = ''): estypes.QueryDslQueryContainer {
  if (folder === '') return shareQuery(share);
  return { bool: { filter: [shareQuery(share), { term: { folder_ancestors: folderKey(folder) } }] } };
}

/**
 * Every hit of `request`, fetched `size` at a time with search_after, a response's hits at a time; its `sort` must
 * order the hits completely.
 */
export async function* hitsByResponse<T>(client: Client, request: estypes.SearchRequest & { size: number }): AsyncGenerator<estypes.SearchHit<T>[]> {
  let after: estypes.SortResults | undefined;
  do {
    const response = await client.search<T>({ ...request, ...(after === undefined ? {} : { search_after: after }) });
    const hits = response.hits.hits;
    if (hits.length > 0) yield hits;
    after = hits.length === request.size ? hits[hits.length - 1]!.sort : undefined;
  } while (after !== undefined);
}

/**
 * Every indexed page of `share` (or of `options.folder` in it), ordered by path, fetched with search_after, a
 * response's pages at a time: a pass takes every page of a share through here, and a step of an async generator per
 * page costs more than the page's comparison. Both fields come from doc values (the path as the hit's sort value), not
 * from `_source`: Elasticsearch then need not unpack each page's stored text to answer.
 */
export async function* indexedPages(client: Client, share: IndexedShare, options: InventoryOptions = {}): AsyncGenerator<IndexedPage[]> {
  const hits = hitsByResponse<never>(client, {
    index: options.alias ?? DEFAULT_ALIAS,
    size: options.pageSize ?? 1000,
    _source: false,
    docvalue_fields: ['version'],
    query: scopeQuery(share, options.folder),
    // Paths are unique within a share, so they order the pages completely.
    sort: [{ path: 'asc' }],
  });
  for await (const batch of hits) yield batch.map((hit) => ({ id: hit._id!, path: String(hit.sort![0]), version: String((hit.fields!['version'] as unknown[])[0]) }));
}

/**
 * Every folder of `share` (or below `options.folder`) that holds indexed pages, as written (the distinct `folder` values, a composite
 * aggregation paged through). The change watch tells with these which folders matter to the index.
 */
export async function indexedFolders(client: Client, share: IndexedShare, options: InventoryOptions = {}): Promise<string[]> {
  const folders: string[] = [];
  let after: Record<string, estypes.FieldValue> | undefined;
  do {
    const response = await client.search({
      index: options.alias ?? DEFAULT_ALIAS,
      size: 0,
      query: scopeQuery(share, options.folder),
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
