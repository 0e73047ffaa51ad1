/**
 * The `_bulk` format of wiki documents: a document's `_source` and the counts of a response.
 * The one writer that batches them is ../reconciler/index-writer.ts; write-batch.ts sends them.
 */
import type { estypes } from '@elastic/elasticsearch';
import type { WikiDocument } from '../../wiki/document.js';

/** The `_source` of a document: everything but the id, which is the `_id`. */
export function documentSource(doc: WikiDocument): Omit<WikiDocument, 'id'> {
  const { id: _id, ...source } = doc;
  return source;
}

interface BulkItemCounts {
  upserted: number;
  deleted: number;
  /** Operations Elasticsearch rejected one by one (mapping errors, rejections). */
  failed: number;
  /** First few rejection reasons, for the log. */
  reasons: string[];
}

/** Counts a `_bulk` response; deleting a document that is not there counts as deleted. */
export function countBulkItems(response: estypes.BulkResponse): BulkItemCounts {
  const counts: BulkItemCounts = { upserted: 0, deleted: 0, failed: 0, reasons: [] };
  for (const item of response.items) {
    const [action, result] = Object.entries(item)[0] as [string, estypes.BulkResponseItem];
    if (result.error && !(action === 'delete' && result.status === 404)) {
      counts.failed++;
      if (counts.reasons.length < 3) counts.reasons.push(`${result._id}: ${result.error.type} ${result.error.reason ?? ''}`);
    } else if (action === 'delete') counts.deleted++;
    else counts.upserted++;
  }
  return counts;
}
