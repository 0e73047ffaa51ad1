// A test's own calls to the testbed's Elasticsearch: the client it sets up and inspects its indices with, and the
// deletion of the indices it created under its own prefix.
import type { Client } from '@elastic/elasticsearch';
import { createSearchClient } from '../../src/search/client.js';

/**
 * Creating an index (with its mapping and alias) while every file of a tier keeps both cores busy took longer than a
 * search's 10 s timeout, the client's default, and failed a file's setup (stop 60's CI: the doctor's `before`). A
 * test's setup is no search that someone waits on: it gets indexing's timeout.
 */
const TEST_REQUEST_TIMEOUT_MS = 60_000;

/** A client of the testbed's node at `url`, for a test's setup, inspection and clean-up. */
export function testSearchClient(url: string): Client {
  return createSearchClient({ nodes: [url] }, { requestTimeoutMs: TEST_REQUEST_TIMEOUT_MS });
}

/*
 * The cluster refuses wildcards in a delete (action.destructive_requires_name), so the names are listed first, and
 * sent a few at a time: a whole run's indices (a hundred names of 60 characters) make a request line longer than the
 * 4,096 bytes the node takes.
 */

/** Names per DELETE: 30 names of up to 100 characters, URL-encoded, stay under the node's 4,096-byte request line. */
const NAMES_PER_REQUEST = 30;

export async function deleteIndicesStartingWith(es: Client, prefix: string): Promise<void> {
  const indices = Object.keys(await es.indices.get({ index: `${prefix}*`, allow_no_indices: true, ignore_unavailable: true }));
  for (let i = 0; i < indices.length; i += NAMES_PER_REQUEST) {
    await es.indices.delete({ index: indices.slice(i, i + NAMES_PER_REQUEST) });
  }
}
