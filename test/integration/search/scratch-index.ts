/**
 * The testbed's Elasticsearch for the search integration tests, with a scratch alias per test file so the
 * real `wiki-md` is never touched; drop() deletes every index made under the scratch alias.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../../src/search/client.js';
import { readTestbedEnv } from '../../testbed/env.js';

export interface ScratchIndex {
  client: Client;
  alias: string;
  drop(): Promise<void>;
}

export async function scratchIndex(purpose: string): Promise<ScratchIndex> {
  const env = await readTestbedEnv();
  const client = createSearchClient(env.es.url, { maxRetries: 0 });
  const health = await client.cluster.health({ timeout: '30s' });
  if (health.status === 'red') throw new Error(`testbed Elasticsearch at ${env.es.url} is red`);
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
