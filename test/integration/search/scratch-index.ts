/**
 * The testbed's Elasticsearch for the search integration tests, with a scratch alias per test file so the
 * real `wiki-md` is never touched; drop() deletes every index made under the scratch alias.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { bulkWriterOn } from '../../../src/indexing/indexer/write-batch.js';
import { IndexWriter, type IndexWriterCounts, type SourceDocument } from '../../../src/indexing/reconciler/index-writer.js';
import { documentSource } from '../../../src/indexing/indexer/bulk.js';
import { silentLog } from '../../../src/common/logger.js';
import { createSearchClient } from '../../../src/search/client.js';
import { deriveAcl, type DocumentAcl } from '../../../src/wiki/acl.js';
import type { WikiDocument } from '../../../src/wiki/document.js';
import { readTestbedEnv } from '../../testbed/env.js';

export interface ScratchIndex {
  client: Client;
  alias: string;
  drop(): Promise<void>;
}

/** The testbed may be (re)starting Elasticsearch: wait up to two minutes for a green or yellow cluster. */
async function waitForCluster(client: Client, url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    let problem: string;
    try {
      const health = await client.cluster.health({ wait_for_status: 'yellow', timeout: '10s' });
      if (health.status !== 'red') return;
      problem = 'cluster is red';
    } catch (error) {
      problem = String(error);
    }
    if (Date.now() > deadline) throw new Error(`testbed Elasticsearch at ${url} is not usable: ${problem}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export async function scratchIndex(purpose: string): Promise<ScratchIndex> {
  const env = await readTestbedEnv();
  const client = createSearchClient({ nodes: [env.es.url] }, { maxRetries: 0 });
  await waitForCluster(client, env.es.url);
  const alias = `test-wiki-${purpose}-${randomBytes(4).toString('hex')}`;
  return {
    client,
    alias,
    async drop() {
      const indices = Object.keys(await client.indices.get({ index: `${alias}*`, allow_no_indices: true }));
      if (indices.length > 0) await client.indices.delete({ index: indices });
      await client.close();
    },
  };
}

/** The read ACL of a page whose security descriptor has no DACL (SE_SELF_RELATIVE only): everyone may read it. */
export const NO_DACL: DocumentAcl = deriveAcl({ revision: 1, control: 0x8000, owner: null, group: null, dacl: null, sacl: null });

/** A document as the service's writer takes it. */
export function asSource(doc: WikiDocument): SourceDocument {
  return { id: doc.id, source: JSON.stringify(documentSource(doc)) };
}

/** Writes documents through the alias with the service's bulk writer and makes them searchable; returns its counts. */
export async function indexDocuments(es: ScratchIndex, docs: Iterable<WikiDocument>): Promise<IndexWriterCounts> {
  const writer = new IndexWriter({ bulk: bulkWriterOn(es.client), target: { alias: es.alias }, log: silentLog });
  for (const { id, source } of Array.from(docs, asSource)) await writer.upsert(id, source);
  await writer.flush();
  await es.client.indices.refresh({ index: es.alias });
  return writer.counts;
}
