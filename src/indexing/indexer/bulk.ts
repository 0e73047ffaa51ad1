/**
 * The `_bulk` format of wiki documents: a document's `_source` and the counts of a response.
 * The one writer that batches them is ../reconciler/index-writer.ts; write-batch.ts renders them, send-bulk.ts
 * sends them.
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
  /** Operations Elasticsearch refused one by one (mapping errors), back-pressure aside. */
  failed: number;
  /** The first MAX_BULK_REASONS refusal reasons, for the log. */
  reasons: string[];
  /** The operations Elasticsearch pushed back (429: its write queue was full), by their place in the request. */
  pushedBack: { item: number; reason: string }[];
}

/** Refusal reasons a batch's answer keeps, for the log. */
export const MAX_BULK_REASONS = 3;

/**
 * Elasticsearch's answer when it cannot take more now (`es_rejected_execution_exception`, a circuit breaker): the
 * operation was not refused for what it is, and can be sent again.
 */
export const PUSHED_BACK_STATUS = 429;

function itemReason(result: estypes.BulkResponseItem): string {
  return `${result._id}: ${result.error?.type} ${result.error?.reason ?? ''}`;
}

/** Counts a `_bulk` response; deleting a document that is not there counts as deleted. */
export function countBulkItems(response: estypes.BulkResponse): BulkItemCounts {
  const counts: BulkItemCounts = { upserted: 0, deleted: 0, failed: 0, reasons: [], pushedBack: [] };
  response.items.forEach((item, index) => {
    const [action, result] = Object.entries(item)[0] as [string, estypes.BulkResponseItem];
    if (result.error && result.status === PUSHED_BACK_STATUS) counts.pushedBack.push({ item: index, reason: itemReason(result) });
    else if (result.error && !(action === 'delete' && result.status === 404)) {
      counts.failed++;
      if (counts.reasons.length < MAX_BULK_REASONS) counts.reasons.push(itemReason(result));
    } else if (action === 'delete') counts.deleted++;
    else counts.upserted++;
  });
  return counts;
}
