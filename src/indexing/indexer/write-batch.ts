/**
 * The indexer's work on one batch: each page rendered into its document (Markdown to text, the security
 * descriptor to allow/deny SIDs; src/wiki/document.ts), the batch put together as one `_bulk` body and sent.
 * A page that cannot be rendered is left out and named in the answer; a batch Elasticsearch does not take is an
 * answer too (`failed`), so that its reason survives the way back to the reconciler's thread. What Elasticsearch
 * pushes back for a while (429) is sent again (send-bulk.ts), and the answer says how often.
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { documentSource } from './bulk.js';
import { sendBulk } from './send-bulk.js';
import { buildWikiDocument } from '../../wiki/document.js';
import type { ReadPage } from '../listing.js';
import type { BatchResult, BulkWriter, IndexOperation, NotRendered, WriteTarget } from '../operations.js';

function indexLines(id: string, source: string): string {
  return `{"index":{"_id":${JSON.stringify(id)}}}\n${source}\n`;
}

/** The JSON text of the page's `_source`. */
function render({ page, facts, content }: ReadPage): string {
  const document = buildWikiDocument({ ...page, content, size: facts.size, modified: new Date(facts.modified), acl: facts.acl });
  return JSON.stringify(documentSource(document));
}

function bulkLines(operation: IndexOperation, notRendered: NotRendered[]): string {
  switch (operation.op) {
    case 'delete':
      return `{"delete":{"_id":${JSON.stringify(operation.id)}}}\n`;
    case 'source':
      return indexLines(operation.id, operation.source);
    case 'render':
      try {
        return indexLines(operation.page.id, render(operation.page));
      } catch (error) {
        notRendered.push({ page: operation.page.page, error: `not rendered: ${error instanceof Error ? error.message : String(error)}` });
        return '';
      }
  }
}

/** Renders and writes one batch into `target` on this thread. */
export async function writeBatch(client: Client, target: WriteTarget, operations: readonly IndexOperation[]): Promise<BatchResult> {
  const notRendered: NotRendered[] = [];
  const lines = operations.map((operation) => bulkLines(operation, notRendered)).filter((line) => line !== '');
  if (lines.length === 0) return { written: { upserted: 0, deleted: 0, rejected: 0, reasons: [], notRendered } };
  const name = 'alias' in target ? target.alias : target.index;
  const post = async (bulkBody: string) => (await client.transport.request({
    method: 'POST',
    path: `/${encodeURIComponent(name)}/_bulk`,
    querystring: 'alias' in target ? { require_alias: 'true' } : {},
    bulkBody,
  })) as estypes.BulkResponse;
  const sent = await sendBulk(lines, post);
  return 'failed' in sent ? sent : { ...sent, written: { ...sent.written, notRendered } };
}

/** Batches written on this thread: for tools and tests that have no indexer pool. */
export function bulkWriterOn(client: Client): BulkWriter {
  return { write: (target, operations) => writeBatch(client, target, operations) };
}
