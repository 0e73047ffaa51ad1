// Deletes the Elasticsearch indices a test created under its own prefix. The cluster refuses wildcards in a
// delete (action.destructive_requires_name), so the names are listed first, and sent a few at a time: a whole run's
// indices (a hundred names of 60 characters) make a request line longer than the 4,096 bytes the node takes.
import type { Client } from '@elastic/elasticsearch';

/** Names per DELETE: 30 names of up to 100 characters, URL-encoded, stay under the node's 4,096-byte request line. */
const NAMES_PER_REQUEST = 30;

export async function deleteIndicesStartingWith(es: Client, prefix: string): Promise<void> {
  const indices = Object.keys(await es.indices.get({ index: `${prefix}*`, allow_no_indices: true, ignore_unavailable: true }));
  for (let i = 0; i < indices.length; i += NAMES_PER_REQUEST) {
    await es.indices.delete({ index: indices.slice(i, i + NAMES_PER_REQUEST) });
  }
}
