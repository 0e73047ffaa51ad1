/**
 * The `wiki-md` index: settings and mapping of the versioned index `wiki-md-vN` behind the alias.
 * Raise MAPPING_VERSION whenever the mapping or analysis changes; ensureIndex() then reports that a rebuild is due.
 */
import type { estypes } from '@elastic/elasticsearch';

export const MAPPING_VERSION = 2;
export const DEFAULT_ALIAS = 'wiki-md';

/**
 * `german` (lowercase, German stop words, umlauts and ß folded, light stemming) comes with Elasticsearch's
 * analysis-common module (the testbed has a plugin with the same analyzer); `standard` is always there.
 */
export type TextAnalyzer = 'german' | 'standard';

/** What `_meta` of every versioned index records. */
export interface IndexMeta {
  mapping_version: number;
  analyzer: TextAnalyzer;
}

/** The settings config.yml may set (elasticsearch.index). */
export interface IndexLayout {
  shards: number;
  replicas: number;
  refreshIntervalMs: number;
}

/**
 * The sidecar's: a single node, where a replica could never be assigned and would keep the cluster yellow.
 * A cluster gets a replica (the config's default with several nodes), so a node may fail without losing pages.
 */
export const SINGLE_NODE_LAYOUT: IndexLayout = { shards: 1, replicas: 0, refreshIntervalMs: 1000 };

/**
 * BM25 with less length normalisation than its default (b 0.75): a topic's own page is long and names its words
 * several times, a note naming one of them in passing is short; at 0.75 such notes outranked the topic's page for a
 * single word (bench/RESULTS.md, Wiki search: relevance and suggestions).
 */
const SIMILARITY: estypes.IndicesSettingsSimilarity = { type: 'BM25', b: 0.5, k1: 1.2 };

export function indexSettings(layout: IndexLayout = SINGLE_NODE_LAYOUT): estypes.IndicesIndexSettings {
  return {
    number_of_shards: layout.shards,
    number_of_replicas: layout.replicas,
    refresh_interval: `${layout.refreshIntervalMs}ms`,
    similarity: { default: SIMILARITY },
  };
}

export function indexMappings(analyzer: TextAnalyzer): estypes.MappingTypeMapping {
  const keyword = { type: 'keyword' } as const;
  const date = { type: 'date' } as const;
  const meta: IndexMeta = { mapping_version: MAPPING_VERSION, analyzer };
  return {
    // Strict: a document with an unknown field is a bug in the indexer, not something to map on the fly.
    dynamic: 'strict',
    _meta: { ...meta },
    properties: {
      server: keyword,
      share: keyword,
      folder: keyword,
      folder_key: keyword,
      folder_ancestors: keyword,
      page: keyword,
      path: keyword,
      is_start_page: { type: 'boolean' },
      title: { type: 'text', analyzer },
      headings: { type: 'text', analyzer },
      // Offsets in the postings let the unified highlighter cut snippets without re-analysing long pages.
      body: { type: 'text', analyzer, index_options: 'offsets' },
      size: { type: 'long' },
      modified: date,
      version: keyword,
      acl_allow: keyword,
      acl_deny: keyword,
      indexed_at: date,
    },
  };
}
